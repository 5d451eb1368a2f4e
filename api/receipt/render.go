package receipt

import (
	"bytes"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"

	"github.com/propfin/propfin/api/ptbr"
	"github.com/propfin/propfin/api/publicpage"
	"github.com/propfin/propfin/pix"
)

//go:embed assets/page.html assets/style.css assets/script.js
var assets embed.FS

// qrSize is the side of the PIX QR code image, in pixels.
const qrSize = 320

var (
	templates = template.Must(template.New("receipt").Funcs(template.FuncMap{
		"money":       ptbr.Money,
		"date":        ptbr.Date,
		"taxID":       ptbr.TaxID,
		"taxIDLabel":  ptbr.TaxIDLabel,
		"method":      methodLabel,
		"partMethods": partMethods,
	}).ParseFS(assets, "assets/*.html"))
	style  = mustAsset("assets/style.css")
	script = mustAsset("assets/script.js")
	// contentSecurityPolicy lets the page use its own inline style and
	// script (by hash, so nothing injected would run) and data: images,
	// and nothing else: no request leaves the page.
	contentSecurityPolicy = "default-src 'none'; img-src data:; style-src " + sourceHash(style) +
		"; script-src " + sourceHash(script) + "; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

func mustAsset(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("receipt: embedded asset %s: %v", name, err))
	}
	return string(b)
}

var shell = publicpage.Shell{Style: style, CSP: contentSecurityPolicy}

// sourceHash is a CSP hash source of an inline element's text.
var sourceHash = publicpage.SourceHash

// view is what the page template reads: the page and what is derived
// from it.
type view struct {
	Page
	Title          string
	StatusLabel    string
	Paid           bool
	PartiallyPaid  bool
	Canceled       bool
	CanceledText   string
	NotPayableHere bool
	Payable        bool
	Line           string // the digitable line as printed
	LineDigits     string // the digitable line as 47 digits, for copying
	BarcodeSrc     template.URL
	QRSrc          template.URL
	Style          template.CSS
	Script         template.JS
}

// Render writes the page of p as HTML. An invalid page (unknown kind or
// status, paid without payment, a boleto whose line and barcode disagree,
// a PIX code that does not validate) is an error and nothing is written.
func Render(w io.Writer, p Page) error {
	if err := p.validate(); err != nil {
		return fmt.Errorf("rendering receipt page: %w", err)
	}
	v, err := newView(p)
	if err != nil {
		return fmt.Errorf("rendering receipt page: %w", err)
	}
	return execute(w, "page", v)
}

// newView derives what the template shows from p.
func newView(p Page) (view, error) {
	v := view{
		Page:          p,
		Title:         title(p),
		StatusLabel:   statusLabels[p.Status],
		Paid:          p.Status == StatusPaid,
		PartiallyPaid: p.Status == StatusPartiallyPaid,
		Canceled:      p.Status == StatusCanceled,
		CanceledText:  "Este lançamento foi cancelado.",
		Payable:       p.Status.Payable(),
		Style:         template.CSS(style),
		Script:        template.JS(script),
	}
	if p.Kind == KindInvoice {
		v.CanceledText = "Esta fatura foi cancelada."
	}
	v.NotPayableHere = p.Status == StatusInProtest
	switch {
	case v.PartiallyPaid: // the boleto is of the whole total; a PIX code is of the balance
		v.Boleto = nil
	case !v.Payable:
		v.Boleto, v.PixCode = nil, ""
		return v, nil
	}
	return v, v.addPaymentMeans()
}

// addPaymentMeans draws the boleto barcode and the PIX QR code.
func (v *view) addPaymentMeans() error {
	if v.Boleto != nil {
		src, err := barcodeDataURI(v.Boleto.Barcode)
		if err != nil {
			return err
		}
		v.BarcodeSrc = src
		v.LineDigits = stripPunct(v.Boleto.DigitableLine)
		v.Line = formatLine(v.LineDigits)
	}
	if v.PixCode != "" {
		png, err := pix.QRPNG(v.PixCode, qrSize)
		if err != nil {
			return fmt.Errorf("PIX code: %w", err)
		}
		v.QRSrc = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))
	}
	return nil
}

// title is the page's heading.
func title(p Page) string {
	invoice := p.Kind == KindInvoice
	switch {
	case p.Status == StatusPaid:
		return "Recibo de pagamento"
	case p.Status == StatusCanceled && invoice:
		return "Fatura cancelada"
	case p.Status == StatusCanceled:
		return "Lançamento cancelado"
	}
	t := "Lançamento"
	if invoice {
		t = "Fatura"
	}
	if p.Number != "" {
		t += " nº " + p.Number
	}
	return t
}

// RenderNotFound writes the page answered for a link that is wrong,
// expired or names nothing. It says no more than that, so a guessed link
// learns nothing.
func RenderNotFound(w io.Writer) error {
	return renderError(w, "Página não encontrada",
		"Este link não é válido ou expirou. Peça um novo link a quem enviou a cobrança.")
}

// renderUnavailable writes the page answered when the record could not be
// read; it holds no internal detail.
func renderUnavailable(w io.Writer) error {
	return renderError(w, "Página indisponível",
		"Não foi possível mostrar esta página agora. Tente de novo em alguns minutos.")
}

// renderMethodNotAllowed writes the page answered to a method other than
// GET and HEAD.
func renderMethodNotAllowed(w io.Writer) error {
	return renderError(w, "Método não permitido", "Esta página só pode ser lida.")
}

func renderError(w io.Writer, title, message string) error {
	return shell.RenderError(w, title, message)
}

// execute runs a template into a buffer first, so a failure writes
// nothing.
func execute(w io.Writer, name string, data any) error {
	var buf bytes.Buffer
	if err := templates.ExecuteTemplate(&buf, name, data); err != nil {
		return fmt.Errorf("executing template %s: %w", name, err)
	}
	if _, err := buf.WriteTo(w); err != nil {
		return fmt.Errorf("writing %s page: %w", name, err)
	}
	return nil
}
