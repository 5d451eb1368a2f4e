package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// largeBodiesPeak is the most memory (VmHWM, the peak resident set) a
// `propfin serve` may reach while refusing eight large bodies at once,
// three times over (docs/performance.md, "Large bodies"): the bodies are
// refused from their header or at the first limit they pass, not read
// whole first.
const largeBodiesPeak = 256 << 20

// TestLargeBodiesHoldMemory builds and runs `propfin serve` and sends it, eight at
// once: 52 MB PIX bodies of a million payloads (ten times the limit), 63
// MiB return files without a line break, and bodies whose Content-Length
// is over the route's limit with Expect: 100-continue. Each is refused as
// it should be, the last without 100 Continue, and the process stays
// under largeBodiesPeak.
func TestLargeBodiesHoldMemory(t *testing.T) {
	pool := storagetest.NewDB(t)
	mr := miniredis.RunT(t)
	company, user, err := storage.EnsureCompany(context.Background(), pool, "Large bodies")
	if err != nil {
		t.Fatal(err)
	}
	issued, err := storage.CreateAPIKey(context.Background(), pool, company, user, "large bodies")
	if err != nil {
		t.Fatal(err)
	}
	key := issued.Key
	addr := freeAddr(t)
	// the binary as built, not this test binary: its memory is the
	// program's, whatever the test's build flags (-race multiplies it)
	api := startBinary(t, "api", buildPropfin(t), []string{"DATABASE_URL=" + storagetest.URL(t),
		"REDIS_URL=redis://" + mr.Addr() + "/0", "PROPFIN_RATE_LIMIT=100000"}, "serve", "--addr", addr)
	waitHTTP(t, "http://"+addr+"/healthz")
	idle := peakRSS(t, api)

	var pixBody bytes.Buffer
	pixBody.WriteString(`{"payloads":[`)
	for i := range 1_000_000 {
		if i > 0 {
			pixBody.WriteByte(',')
		}
		fmt.Fprintf(&pixBody, `"00020101021126330014br.gov.bcb.pix0111%011d"`, i)
	}
	pixBody.WriteString(`]}`)
	returnFile := bytes.Repeat([]byte("0"), 63<<20)

	at := "http://" + addr
	eightAtOnce(t, func() error {
		return refused(at+"/pix/validate", key, "application/json", pixBody.Bytes(), http.StatusUnprocessableEntity, "payloads", "at most 100000")
	})
	afterPix := peakRSS(t, api)
	eightAtOnce(t, func() error {
		return refused(at+"/financial/ticketBatch/returnFile", key, "application/octet-stream", returnFile,
			http.StatusUnprocessableEntity, "file", "line 1: longer than 4096 characters")
	})
	afterReturn := peakRSS(t, api)
	eightAtOnce(t, func() error { return refusedFromHeader(addr, key, "/pix/validate", 64<<20+1) })
	eightAtOnce(t, func() error { return refusedFromHeader(addr, key, "/financial/ticketBatch/returnFile", 1<<30) })
	eightAtOnce(t, func() error { return refusedFromHeader(addr, key, "/buildings/types", 1<<20+1) })

	peak := peakRSS(t, api)
	t.Logf("propfin serve: VmHWM %d MiB idle, %d MiB after the PIX bodies, %d MiB after the return files, %d MiB at the end (bound %d MiB)",
		idle>>20, afterPix>>20, afterReturn>>20, peak>>20, largeBodiesPeak>>20)
	if peak > largeBodiesPeak {
		t.Errorf("VmHWM %d MiB, over the bound of %d MiB", peak>>20, largeBodiesPeak>>20)
	}
}

// buildPropfin builds the propfin binary (go build, as deployed) for the
// test and returns its path.
func buildPropfin(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "propfin")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// eightAtOnce runs send eight times at once and fails on every error.
func eightAtOnce(t *testing.T, send func() error) {
	t.Helper()
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { errs[i] = send() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// refused posts body and checks the answer is status, naming field with
// a message holding want.
func refused(url, key, contentType string, body []byte, status int, field, want string) error {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", contentType)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", url, err)
	}
	defer res.Body.Close()
	var answer struct {
		Errors []finance.Problem `json:"errors"`
	}
	if err := json.NewDecoder(res.Body).Decode(&answer); err != nil {
		return fmt.Errorf("POST %s: %d, not the envelope: %w", url, res.StatusCode, err)
	}
	if res.StatusCode != status || len(answer.Errors) != 1 || answer.Errors[0].Field != field ||
		!strings.Contains(answer.Errors[0].Message, want) {
		return fmt.Errorf("POST %s: %d %+v, want %d naming %s with %q", url, res.StatusCode, answer.Errors, status, field, want)
	}
	return nil
}

// refusedFromHeader sends the head of a POST declaring a body of length
// bytes with Expect: 100-continue, and no body: the answer must be a 413
// in the envelope, with no 100 Continue before it (which would have the
// client send the body).
func refusedFromHeader(addr, key, path string, length int64) error {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	// a guard against a server that waits for the body: the answer comes
	// at once, or the test fails rather than hang
	conn.SetDeadline(time.Now().Add(time.Minute)) //nolint:errcheck // a fresh connection
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\nExpect: 100-continue\r\n\r\n", path, addr, key, length)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return fmt.Errorf("POST %s of %d bytes: %w", path, length, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusRequestEntityTooLarge || !bytes.Contains(body, []byte(`"status":413`)) {
		return fmt.Errorf("POST %s declaring %d bytes: %d %s, want 413 before the body", path, length, res.StatusCode, body)
	}
	return nil
}

// peakRSS reads the peak resident set of a process (VmHWM), in bytes.
func peakRSS(t *testing.T, p *proc) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		t.Fatalf("the process's peak memory: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kB, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", rest, err)
			}
			return kB << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", p.cmd.Process.Pid)
	return 0
}
