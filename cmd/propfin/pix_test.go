package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The static BR Code example of the BCB PIX manual.
const pixExample = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-426655440000" +
	"5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D"

func runPixCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"pix"}, args...), strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestPixValidate(t *testing.T) {
	t.Parallel()
	code, out, _ := runPixCLI(t, "", "validate", pixExample)
	if code != 0 || out != "valid\n" {
		t.Fatalf("valid payload: exit %d, %q", code, out)
	}
	bad := strings.Replace(pixExample, "5303986", "5303840", 1)
	code, out, _ = runPixCLI(t, "", "validate", bad)
	want := "currency: transaction currency (53) must be \"986\", not \"840\" (invalid_value)\n" +
		"crc: the CRC (63) is 1D3D but the payload's is "
	if code != 1 || !strings.HasPrefix(out, want) || strings.Count(out, "\n") != 2 {
		t.Fatalf("invalid payload: exit %d, %q", code, out)
	}
}

func TestPixValidateJSON(t *testing.T) {
	t.Parallel()
	code, out, _ := runPixCLI(t, "", "validate", "--json", pixExample)
	var res struct {
		Valid   bool `json:"valid"`
		Payload struct {
			MerchantName string `json:"merchant_name"`
			Account      struct {
				KeyType string `json:"key_type"`
			} `json:"merchant_account"`
		} `json:"payload"`
		Problems []map[string]string `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not JSON: %v: %q", err, out)
	}
	if code != 0 || !res.Valid || res.Payload.MerchantName != "Fulano de Tal" || res.Payload.Account.KeyType != "evp" ||
		res.Problems == nil || len(res.Problems) != 0 {
		t.Fatalf("exit %d, %+v", code, res)
	}
	code, out, _ = runPixCLI(t, "", "validate", pixExample[:len(pixExample)-4]+"0000", "--json")
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not JSON: %v: %q", err, out)
	}
	p := res.Problems
	if code != 1 || res.Valid || len(p) != 1 || p[0]["code"] != "crc_mismatch" || p[0]["field"] != "crc" || p[0]["message"] == "" {
		t.Fatalf("exit %d, %+v", code, res)
	}
}

func TestPixValidateStdin(t *testing.T) {
	t.Parallel()
	lower := pixExample[:len(pixExample)-4] + "1d3d"
	stdin := pixExample + "\r\n" + "garbage\n\n" + lower + "\n"
	code, out, _ := runPixCLI(t, stdin, "validate", "-")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 1 || len(lines) != 3 || lines[0] != "line 1: valid" || lines[2] != "line 4: valid" ||
		!strings.HasPrefix(lines[1], "line 2: invalid: payload: at character 1") {
		t.Fatalf("exit %d, %q", code, out)
	}
	code, out, _ = runPixCLI(t, pixExample+"\n"+lower+"\n", "validate", "--json", "-")
	if code != 0 || strings.Count(out, `"valid":true`) != 2 || !strings.Contains(out, `"line":2`) {
		t.Fatalf("all valid with --json: exit %d, %q", code, out)
	}
}

func TestPixValidateStdinLongLine(t *testing.T) {
	t.Parallel()
	// A line longer than the reader's buffer is one invalid payload, and
	// the lines after it are still checked.
	stdin := pixExample + "\n" + strings.Repeat("0", 3<<20) + "\r\n" + pixExample + "\n"
	for _, asJSON := range []bool{false, true} {
		args := []string{"validate", "-"}
		if asJSON {
			args = append(args, "--json")
		}
		code, out, errOut := runPixCLI(t, stdin, args...)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 1 || len(lines) != 3 || errOut != "" {
			t.Fatalf("json %v: exit %d, %d lines, stderr %q", asJSON, code, len(lines), errOut)
		}
		if asJSON {
			if !strings.Contains(lines[1], `"line":2,"valid":false`) || !strings.Contains(lines[1], `"code":"too_long","field":"payload"`) ||
				!strings.Contains(lines[2], `"line":3,"valid":true`) {
				t.Fatalf("json: %q", lines)
			}
			continue
		}
		if lines[0] != "line 1: valid" || lines[2] != "line 3: valid" ||
			!strings.HasPrefix(lines[1], "line 2: invalid: payload: ") || !strings.HasSuffix(lines[1], "(too_long)") {
			t.Fatalf("lines %q", lines)
		}
	}
}

func TestPixBuild(t *testing.T) {
	t.Parallel()
	code, out, _ := runPixCLI(t, "", "build", "--key", "123e4567-e12b-12d1-a456-426655440000",
		"--name", "Fulano de Tal", "--city", "BRASILIA")
	if code != 0 || out != pixExample+"\n" {
		t.Fatalf("exit %d, %q", code, out)
	}
	// Accents are folded; the result validates.
	code, out, _ = runPixCLI(t, "", "build", "--key", "12345678909", "--name", "João Imóveis",
		"--city", "São Paulo", "--amount", "1500.00", "--txid", "Aluguel112026")
	payload := strings.TrimSuffix(out, "\n")
	if code != 0 || !strings.Contains(payload, "5912Joao Imoveis6009Sao Paulo") || !strings.Contains(payload, "54071500.00") {
		t.Fatalf("exit %d, %q", code, out)
	}
	if code, out, _ := runPixCLI(t, "", "validate", payload); code != 0 {
		t.Fatalf("built payload invalid: %q", out)
	}
	code, out, _ = runPixCLI(t, "", "build", "--url", "pix.example.com/8b3da2f39a4140d1a91abd93113bd441",
		"--name", "Fulano de Tal", "--city", "BRASILIA")
	if code != 0 || !strings.HasPrefix(out, "00020101021226700014br.gov.bcb.pix2548") {
		t.Fatalf("dynamic: exit %d, %q", code, out)
	}
	// The BCB manual allows an amount (54) in a dynamic code too.
	code, out, errOut := runPixCLI(t, "", "build", "--url", "pix.example.com/8b3da2f39a4140d1a91abd93113bd441",
		"--name", "Fulano de Tal", "--city", "BRASILIA", "--amount", "10.00")
	payload = strings.TrimSuffix(out, "\n")
	if code != 0 || !strings.Contains(payload, "520400005303986540510.005802BR") {
		t.Fatalf("dynamic with amount: exit %d, %q, %q", code, out, errOut)
	}
	if code, out, _ := runPixCLI(t, "", "validate", payload); code != 0 {
		t.Fatalf("built dynamic payload with amount invalid: %q", out)
	}
	if code, _, errOut := runPixCLI(t, "", "build", "--url", "x.example.com/1", "--name", "A", "--city", "B", "--amount", "1,00"); code != 1 ||
		!strings.Contains(errOut, "(invalid_amount)") {
		t.Fatalf("dynamic with a bad amount: exit %d, %q", code, errOut)
	}
}

func TestPixBuildProblems(t *testing.T) {
	t.Parallel()
	code, out, errOut := runPixCLI(t, "", "build", "--key", "12345678900", "--name", "Fulano", "--amount", "10,00")
	want := []string{"key: ", "(key_check_digit)", "merchant_city: the receiver city is missing (missing)", "(invalid_amount)"}
	for _, w := range want {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q: %q", w, errOut)
		}
	}
	if code != 1 || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	if code, _, errOut := runPixCLI(t, "", "build", "--url", "x.example.com/1", "--key", "12345678909", "--name", "A", "--city", "B"); code != 1 ||
		!strings.Contains(errOut, "--url builds a dynamic payload") {
		t.Fatalf("url with key: exit %d, %q", code, errOut)
	}
}

func TestPixQR(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "pix.png")
	code, _, errOut := runPixCLI(t, "", "qr", pixExample, "-o", file, "--size", "200")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width != cfg.Height || cfg.Width > 200 || cfg.Width < 100 {
		t.Fatalf("PNG %dx%d, %v", cfg.Width, cfg.Height, err)
	}
	code, out, _ := runPixCLI(t, "", "qr", "-o", "-", pixExample)
	if code != 0 || !strings.HasPrefix(out, "\x89PNG") {
		t.Fatalf("stdout PNG: exit %d", code)
	}
	code, _, errOut = runPixCLI(t, "", "qr", pixExample[:len(pixExample)-4]+"0000", "-o", file)
	if code != 1 || !strings.Contains(errOut, "(crc_mismatch)") {
		t.Fatalf("invalid payload: exit %d, %q", code, errOut)
	}
	if code, _, _ := runPixCLI(t, "", "qr", pixExample); code != 1 {
		t.Fatalf("qr without -o: exit %d", code)
	}
}

func TestPixUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"nope"}, {"validate"}, {"validate", "a", "b"}, {"validate", "--nope", "x"}} {
		if code, _, errOut := runPixCLI(t, "", args...); code != 1 || errOut == "" {
			t.Errorf("pix %v: exit %d, stderr %q", args, code, errOut)
		}
	}
	if code, out, _ := runPixCLI(t, "", "help"); code != 0 || !strings.Contains(out, "validate") {
		t.Errorf("pix help: exit %d, %q", code, out)
	}
}
