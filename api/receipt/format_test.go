package receipt

import "testing"

func TestFormatLine(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"34191090080101527124880212460002425480000675787", testLine},
		{testLine, testLine},
		{"123", "123"},
	}
	for _, tt := range tests {
		if got := formatLine(tt.in); got != tt.want {
			t.Errorf("formatLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMethodLabel(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"ticket", "Boleto"},
		{"pix", "PIX"},
		{"debit_account", "Débito em conta"},
		{"barter", "barter"},
	}
	for _, tt := range tests {
		if got := methodLabel(tt.in); got != tt.want {
			t.Errorf("methodLabel(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
