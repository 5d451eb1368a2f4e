package pgcluster

import (
	"strings"
	"testing"
)

func TestParsePidFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		text    string
		want    pidFile
		wantErr bool
	}{
		{
			name: "ready server",
			text: "4242\n/srv/pg\n1763812345\n54321\n\n127.0.0.1\n 12345678  98304\nready   \n",
			want: pidFile{pid: 4242, port: 54321, listenAddr: "127.0.0.1", status: "ready"},
		},
		{
			name: "starting, listen address not written yet",
			text: "4242\n/srv/pg\n1763812345\n54321\n\n",
			want: pidFile{pid: 4242, port: 54321},
		},
		{
			name: "only the pid",
			text: "4242",
			want: pidFile{pid: 4242},
		},
		{name: "empty", text: "", wantErr: true},
		{name: "bad pid", text: "abc\n", wantErr: true},
		{name: "negative pid", text: "-1\n", wantErr: true},
		{name: "bad port", text: "4242\n/srv/pg\n1\n99999\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePidFile(tt.text)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("got %+v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func FuzzParsePidFile(f *testing.F) {
	f.Add("4242\n/srv/pg\n1763812345\n54321\n\n127.0.0.1\n 12345678  98304\nready   \n")
	f.Add("1\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		pf, err := parsePidFile(text)
		if err != nil {
			return
		}
		if pf.pid <= 0 || pf.port < 0 || pf.port > 65535 {
			t.Errorf("accepted %q as %+v", text, pf)
		}
		if strings.ContainsAny(pf.status+pf.listenAddr, "\n") {
			t.Errorf("a field holds a newline: %+v", pf)
		}
	})
}
