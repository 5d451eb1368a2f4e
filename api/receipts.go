package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/api/receipt"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// receiptPath is where the public receipt pages are served, without an
// API key: /receipts/{token}.
const receiptPath = "/receipts/"

// receiptLinks signs the links to the public receipt page.
type receiptLinks struct {
	signer    *receipt.Signer // nil: receipt links are not configured
	publicURL string          // the base of the links; "" derives it from the request
	lifetime  time.Duration
}

// newReceiptLinks builds the links from the configuration; a secret too
// short is a configuration error.
func newReceiptLinks(secret []byte, publicURL string, lifetime time.Duration) (*receiptLinks, error) {
	links := &receiptLinks{publicURL: strings.TrimRight(publicURL, "/"), lifetime: lifetime}
	if links.lifetime <= 0 {
		links.lifetime = receipt.DefaultLifetime
	}
	if len(secret) == 0 {
		return links, nil
	}
	signer, err := receipt.NewSigner(secret)
	if err != nil {
		return nil, fmt.Errorf("receipt secret: %w", err)
	}
	links.signer = signer
	return links, nil
}

// base is the scheme and host the links start with.
func (l *receiptLinks) base(r *http.Request) string {
	if l.publicURL != "" {
		return l.publicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// invoiceReceiptLink is GET /invoices/{invoice_id}/receiptLink.
func (s *Server) invoiceReceiptLink(w http.ResponseWriter, r *http.Request) {
	s.receiptLink(w, r, "invoice_id", receipt.KindInvoice, s.store.InvoiceReceipt)
}

// transactionReceiptLink is GET /transactions/{id}/receiptLink.
func (s *Server) transactionReceiptLink(w http.ResponseWriter, r *http.Request) {
	s.receiptLink(w, r, "id", receipt.KindTransaction, s.store.TransactionReceipt)
}

// linkEnvelope is the answer of receiptLink, its keys in the envelope's
// order.
type linkEnvelope struct {
	Return bool            `json:"return"`
	Status int             `json:"status"`
	Data   receiptLinkData `json:"data"`
}

type receiptLinkData struct {
	URL       string `json:"url"`
	ExpiresAt string `json:"expires_at"`
}

// receiptLink answers {"url", "expires_at"}: a signed link to the record's
// public page, valid for the links' lifetime. The record must be the
// caller's company's (404 otherwise); without a configured secret the
// links are a 503 that says so.
func (s *Server) receiptLink(w http.ResponseWriter, r *http.Request, param, kind string,
	read func(context.Context, int64, int64) (storage.Receipt, error)) {
	id, ok := pathParamID(w, r, param)
	if !ok {
		return
	}
	if err := noQuery(r.URL.RawQuery); err != nil {
		writeError(w, r, err)
		return
	}
	if s.receipts.signer == nil {
		writeError(w, r, finance.Errorf(finance.Unavailable,
			"Receipt links are not configured on this server (PROPFIN_RECEIPT_SECRET)."))
		return
	}
	companyID := principalOf(r.Context()).CompanyID
	if _, err := read(r.Context(), companyID, id); err != nil {
		writeError(w, r, err)
		return
	}
	url, expires := s.receipts.sign(s.receipts.base(r), kind, companyID, id, time.Now())
	writeJSON(w, http.StatusOK, linkEnvelope{Return: true, Status: http.StatusOK, Data: receiptLinkData{
		URL: url, ExpiresAt: expires.Format(time.DateTime),
	}})
}

// sign makes a link to the public page of a record of the company from
// base (the scheme and host), valid for the links' lifetime from now: its
// URL and its expiry (UTC, whole seconds). The signer must be configured.
// The API's receiptLink and the billing reminders make their links here.
func (l *receiptLinks) sign(base, kind string, companyID, id int64, now time.Time) (string, time.Time) {
	expires := now.Add(l.lifetime).UTC().Truncate(time.Second)
	return base + receiptPath + l.signer.Sign(kind, companyID, id, expires), expires
}

// receiptPage serves the public page of a signed link; without a
// configured secret every link is a 404 page.
func (s *Server) receiptPage() http.Handler {
	if s.receipts.signer == nil {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusNotFound)
			receipt.RenderNotFound(w) //nolint:errcheck // the status is written
		})
	}
	return receipt.Handler(s.loadReceipt, s.receipts.signer, nil)
}

// loadReceipt reads the page of a verified link.
func (s *Server) loadReceipt(ctx context.Context, ref receipt.Ref) (receipt.Page, error) {
	read := s.store.InvoiceReceipt
	if ref.Kind == receipt.KindTransaction {
		read = s.store.TransactionReceipt
	}
	rec, err := read(ctx, ref.CompanyID, ref.ID)
	switch finance.ErrorCode(err) {
	case finance.NotFound:
		return receipt.Page{}, fmt.Errorf("%w: %w", receipt.ErrNotFound, err)
	case finance.Unavailable:
		return receipt.Page{}, fmt.Errorf("%w: %w", receipt.ErrUnavailable, err)
	}
	if err != nil {
		return receipt.Page{}, err
	}
	return receiptPageOf(ref.Kind, rec), nil
}

// receiptPageOf turns what storage read into the page's values.
func receiptPageOf(kind string, rec storage.Receipt) receipt.Page {
	page := receipt.Page{
		Kind: kind, Number: rec.Number,
		Business:    receipt.Party{Name: rec.BusinessName, TaxID: rec.BusinessTaxID},
		Payer:       receipt.Party{Name: rec.PayerName, TaxID: rec.PayerTaxID},
		Description: rec.Description, Competence: rec.Competence, DueDate: rec.DueDate,
		Total: rec.Total, Status: receipt.Status(rec.Status), PixCode: rec.PixCode,
	}
	for _, l := range rec.Lines {
		page.Items = append(page.Items, receipt.Item{Description: l.Description, Amount: l.Amount})
	}
	method := paymentMethod(rec)
	switch {
	case rec.Paid:
		page.Payment = &receipt.Payment{PaidAt: rec.PaidAt, CreditAt: rec.CreditAt, Amount: rec.PaidAmount,
			LateFee: rec.LateFee, Interest: rec.Interest, Discount: rec.Discount, Method: method, InParts: len(rec.Parts) > 1,
			Refunded: rec.Refunded}
		if len(rec.Parts) > 1 {
			page.Parts = receiptParts(rec.Parts)
		}
	case page.Status == receipt.StatusPartiallyPaid && rec.PaidAmount.IsPositive():
		// what the parts paid so far (docs/ledger.md, "Part payments"), each with its day, and the balance
		page.Payment = &receipt.Payment{Amount: rec.PaidAmount, LateFee: rec.LateFee, Interest: rec.Interest,
			Discount: rec.Discount, Method: method, Refunded: rec.Refunded}
		page.Parts, page.Balance = receiptParts(rec.Parts), rec.Balance
	}
	if rec.Digitable != "" && rec.Barcode != "" {
		page.Boleto = &receipt.Boleto{DigitableLine: rec.Digitable, Barcode: rec.Barcode}
	}
	return page
}

// receiptParts are an invoice's payments as its page lists them.
func receiptParts(parts []storage.ReceiptPart) []receipt.Payment {
	out := make([]receipt.Payment, len(parts))
	for i, p := range parts {
		out[i] = receipt.Payment{PaidAt: p.PaidAt, Amount: p.Amount, LateFee: p.LateFee, Interest: p.Interest, Method: p.Method}
	}
	return out
}

// paymentMethod is how an invoice was paid, as its receipt says it: the
// means its payments name, when every one names the same; none when they
// differ or some name none (its page's list of them says each part's); a
// payment made whole that names none, the billing method, as before
// payments named theirs.
func paymentMethod(rec storage.Receipt) string {
	if len(rec.Parts) == 0 || (len(rec.Parts) == 1 && rec.Parts[0].Method == "" && rec.Status != "partially_paid") {
		return rec.Method
	}
	for _, p := range rec.Parts[1:] {
		if p.Method != rec.Parts[0].Method {
			return ""
		}
	}
	return rec.Parts[0].Method
}

// receiptLinkOp describes GET /{records}/{id}/receiptLink.
func receiptLinkOp(tag, what string) operation {
	link, err := reflector.SchemaFor(linkEnvelope{})
	if err != nil {
		panic("api: " + err.Error())
	}
	return operation{
		tag:     tag,
		summary: "A signed link to the " + what + "'s public receipt page",
		description: "A new link at every call: `PROPFIN_PUBLIC_URL` (else the request's scheme and host) + " +
			"`/receipts/{token}`, valid for 60 days (`expires_at`, UTC). Without a configured secret, a 503 that says so " +
			"(docs/api.md, \"Receipt links\"). It takes no query parameters (422).",
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The link.", link)}, http.StatusNotFound, http.StatusUnprocessableEntity),
	}
}

// receiptPageOp describes the public page a receipt link opens.
var receiptPageOp = operation{
	access:  public,
	tag:     "receipts",
	summary: "The public receipt page of a signed link",
	description: "Server-rendered HTML for the payer: the invoice or ledger entry as it is now, with the boleto's " +
		"digitable line and barcode and the PIX code while unpaid, or the receipt once paid (each payment with its " +
		"day and amount when paid in parts); partly paid, its payments, the balance and a PIX code of the balance " +
		"when one is stored, never the boleto of the whole total. It requests nothing " +
		"from elsewhere. A bad, tampered or expired link, or a record that no longer exists, is the 404 page.",
	pathParams: map[string]*openapi.Parameter{"token": {Description: "The token of the link (78 characters of base64url).",
		Schema: openapi.String()}},
	responses: map[int]*openapi.Response{
		http.StatusOK:                 htmlAnswer("The page."),
		http.StatusNotFound:           htmlAnswer("The not-found page."),
		http.StatusServiceUnavailable: htmlAnswer("The record cannot be read now; retry after `Retry-After`."),
	},
}

// htmlAnswer is an HTML page.
func htmlAnswer(description string) *openapi.Response {
	return &openapi.Response{Description: description,
		Content: map[string]*openapi.MediaType{"text/html": {Schema: openapi.String()}}}
}
