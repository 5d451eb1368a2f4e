package api

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/propfin/propfin/jobs"
	jobmail "github.com/propfin/propfin/jobs/mail"
	"github.com/propfin/propfin/jobs/mail/mailbox"
	"github.com/propfin/propfin/storage"
)

// reminderFixture is an API with receipt links, a worker whose
// invoices:remind sends to an SMTP server of the test's own, and invoices
// of company A due around today.
type reminderFixture struct {
	*invoiceFixture
	box *mailbox.Server
	// the invoices by what they are
	before, onTheDay, late, paid, canceled, protest, noRule, noEmail, other int64
	pix                                                                     string
}

// theDigitable is the boleto line of the invoice reminded before its due date.
const theDigitable = "34191090080101527124880212460002425480000675787"

func reminderEnv(t *testing.T) *reminderFixture {
	t.Helper()
	f := &reminderFixture{invoiceFixture: invoiceEnv(t, withReceipts())}
	box, err := mailbox.Listen("127.0.0.1:0", mailbox.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { box.Close() })
	f.box = box
	composer, err := NewReminderComposer(ReminderMailConfig{From: jobmail.Address{Address: "cobranca@example.com"},
		ReceiptSecret: []byte(testReceiptSecret), PublicURL: f.url})
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := strings.Cut(box.Addr(), ":")
	withWorkersOf(t, f.testEnv, jobs.KindsConfig{Reminders: &jobs.RemindersConfig{
		SMTP: jobmail.Config{Host: host, Port: port, Security: jobmail.StartTLS}, Composer: composer, Connections: 2}})

	f.exec(t, `UPDATE persons SET email = 'paula@example.com' WHERE company_id = $1 AND id = $2`, f.compA, f.payer)
	_, f.pix = testPixCode(t)
	invoice := func(due int, status string, lateFee bool) int64 {
		return f.scalar(t, `INSERT INTO invoices (company_id, type, payer_id, business_id, account_id, billing_method, status, paid,
				paid_at, description, total, date, due_date, ticket_late_fee, ticket_late_fee_percentage, ticket_late_fee_interest)
			VALUES ($1, 'single', $2, $3, $4, 'ticket', $5, $5 = 'paid', CASE WHEN $5 = 'paid' THEN current_date - 20 END,
				'Aluguel', 1500, current_date - 20, $6::date, $7, 2, 1) RETURNING id`,
			f.compA, f.payer, f.business, f.account, status, today(due), lateFee)
	}
	f.before = invoice(5, "unpaid", true)
	f.exec(t, `UPDATE invoices SET pix_code = $3, ticket_digitable = $4 WHERE company_id = $1 AND id = $2`,
		f.compA, f.before, f.pix, theDigitable)
	f.onTheDay = invoice(0, "unpaid", false)
	f.late = invoice(-3, "overdue", true)
	f.paid = invoice(-3, "paid", true)
	f.canceled = invoice(-10, "canceled", true)
	f.protest = invoice(-3, "in_protest", true)
	f.noRule = invoice(-1, "overdue", true)
	f.noEmail = f.scalar(t, `INSERT INTO invoices (company_id, type, payer_id, business_id, account_id, billing_method, description,
			total, date, due_date) VALUES ($1, 'single', $2, $3, $4, 'ticket', 'Condomínio', 300, current_date, $5::date) RETURNING id`,
		f.compA, f.tenant, f.business, f.account, today(0))
	// company B: an invoice due today, its reminders off
	f.other = f.scalar(t, `WITH p AS (INSERT INTO persons (company_id, name, email) VALUES ($1, 'Bia', 'bia@example.com') RETURNING id),
			b AS (INSERT INTO businesses (company_id, name) VALUES ($1, 'B Imóveis') RETURNING id),
			a AS (INSERT INTO accounts (company_id, business_id) SELECT $1, id FROM b RETURNING id, business_id)
		INSERT INTO invoices (company_id, type, payer_id, business_id, account_id, billing_method, description, total, date, due_date)
		SELECT $1, 'single', p.id, a.business_id, a.id, 'ticket', 'Aluguel', 900, current_date, $2::date FROM p, a RETURNING id`,
		f.compB, today(0))
	return f
}

// remind runs invoices:remind of company A for today (again when rerun)
// and returns the job as it ended.
func (f *reminderFixture) remind(t *testing.T, rerun bool) map[string]any {
	t.Helper()
	body := map[string]any{"kind": jobs.KindInvoicesRemind, "payload": map[string]any{"date": today(0)}}
	if rerun {
		body["rerun"] = true
	}
	r := f.do(t, http.MethodPost, "/jobs", f.keyA, body)
	if r.status != http.StatusAccepted {
		t.Fatalf("POST /jobs: %d %s", r.status, r.raw)
	}
	id := num(t, r.record(t)["id"])
	deadline := time.Now().Add(30 * time.Second)
	for {
		job := f.get(t, fmt.Sprintf("/jobs/%d", id), http.StatusOK).record(t)
		if s := job["state"]; s == storage.JobSucceeded || s == storage.JobFailed {
			return job
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d: %v after 30 s", id, job)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// parsedMail is a message as the test reads it: net/mail and
// mime/multipart, nothing of ours.
type parsedMail struct {
	to, from, fromName, replyTo, subject string
	date                                 time.Time
	text, html                           string
}

func parseMail(t *testing.T, raw []byte) parsedMail {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("read message: %v\n%s", err, raw)
	}
	var p parsedMail
	dec := new(mime.WordDecoder)
	if p.subject, err = dec.DecodeHeader(msg.Header.Get("Subject")); err != nil {
		t.Fatalf("subject %q: %v", msg.Header.Get("Subject"), err)
	}
	to, err := msg.Header.AddressList("To")
	if err != nil || len(to) != 1 {
		t.Fatalf("To %q: %v", msg.Header.Get("To"), err)
	}
	from, err := msg.Header.AddressList("From")
	if err != nil || len(from) != 1 {
		t.Fatalf("From %q: %v", msg.Header.Get("From"), err)
	}
	p.to, p.from, p.fromName = to[0].Address, from[0].String(), from[0].Name
	if p.date, err = msg.Header.Date(); err != nil {
		t.Fatalf("Date %q: %v", msg.Header.Get("Date"), err)
	}
	if rt, err := msg.Header.AddressList("Reply-To"); err == nil && len(rt) == 1 {
		p.replyTo = rt[0].Address
	}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mediaType != "multipart/alternative" {
		t.Fatalf("Content-Type %q: want multipart/alternative", msg.Header.Get("Content-Type"))
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(part) // quoted-printable is decoded by multipart
		if err != nil {
			t.Fatal(err)
		}
		switch part.Header.Get("Content-Type") {
		case "text/plain; charset=utf-8":
			p.text = string(body)
		case "text/html; charset=utf-8":
			p.html = string(body)
		default:
			t.Errorf("part of type %q", part.Header.Get("Content-Type"))
		}
	}
	if p.text == "" || p.html == "" {
		t.Fatalf("want a text and an HTML part:\n%s", raw)
	}
	return p
}

// brDate is today plus days as the messages write dates.
func brDate(days int) string {
	d, _ := time.Parse(time.DateOnly, today(days))
	return d.Format("02/01/2006")
}

var receiptURL = regexp.MustCompile(`https?://[^\s"<>]+/receipts/[A-Za-z0-9_-]+`)

// TestRemindersThroughSMTP: the run sends one message per open invoice a
// rule reminds today, through a real SMTP server, in Portuguese, with the
// amount, the due date, the receipt page's link (which opens the page),
// the PIX code and boleto line, and after the due date the late fee and
// interest to the cent; none for a paid, canceled, protested invoice, or
// one no rule reminds, nor another company's; a second run sends nothing;
// /financial/reminders lists what was sent.
func TestRemindersThroughSMTP(t *testing.T) {
	f := reminderEnv(t)
	r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"reminders_enabled": true,
		"reminders_reply_to": "financeiro@horizonte.example"})
	if r.status != http.StatusOK {
		t.Fatalf("PUT /financial/settings: %d %s", r.status, r.raw)
	}
	job := f.remind(t, false)
	if job["state"] != storage.JobSucceeded {
		t.Fatalf("job: %v", job)
	}
	res, _ := job["result"].(map[string]any)
	if got := fmt.Sprintln(res["due"], res["sent"], res["skipped"], res["failed"], res["before"]); got != "4 3 1 0 0\n" {
		t.Errorf("result %v: due, sent, skipped, failed, before = %s, want 4 3 1 0 0", res, got)
	}

	msgs := f.box.Messages()
	if len(msgs) != 3 {
		t.Fatalf("%d messages, want 3", len(msgs))
	}
	bySubject := map[string]parsedMail{}
	for _, m := range msgs {
		if !slices.Equal(m.To, []string{"paula@example.com"}) || m.From != "cobranca@example.com" {
			t.Errorf("envelope %s → %v", m.From, m.To)
		}
		p := parseMail(t, m.Raw)
		if p.to != "paula@example.com" || p.from != `"Company A" <cobranca@example.com>` || p.replyTo != "financeiro@horizonte.example" {
			t.Errorf("headers to %q from %q reply-to %q", p.to, p.from, p.replyTo)
		}
		// the company's time zone, America/Sao_Paulo: -03:00 all year since 2019
		if _, offset := p.date.Zone(); offset != -3*3600 || time.Since(p.date).Abs() > time.Minute {
			t.Errorf("Date %v: want now at the company's offset, -0300", p.date)
		}
		bySubject[p.subject] = p
	}
	subject := func(days int, format string) parsedMail {
		t.Helper()
		for s, p := range bySubject {
			if strings.Contains(s, fmt.Sprintf(format, brDate(days))) {
				return p
			}
		}
		t.Fatalf("no subject with %q among %v", fmt.Sprintf(format, brDate(days)), slices.Collect(maps.Keys(bySubject)))
		return parsedMail{}
	}
	before := subject(5, "de R$ 1.500,00 vence em 5 dias (%s)")
	for _, want := range []string{"Olá, Paula Pagadora.", "Valor: R$ 1.500,00", "Vencimento: " + brDate(5), f.pix,
		"34191.09008 01015.271248 80212.460002 4 25480000675787"} {
		if !strings.Contains(before.text, want) {
			t.Errorf("the -5 reminder's text lacks %q:\n%s", want, before.text)
		}
	}
	if !strings.Contains(before.html, f.pix) {
		t.Errorf("the HTML lacks the PIX code:\n%s", before.html)
	}
	link := receiptURL.FindString(before.text)
	if !strings.HasPrefix(link, f.url+"/receipts/") || !strings.Contains(before.html, link) {
		t.Fatalf("the -5 reminder's link %q: want one under %s/receipts/, in both parts", link, f.url)
	}
	if status, body := page(t, link); status != http.StatusOK || !strings.Contains(body, "1.500,00") {
		t.Errorf("the link opens %d:\n%.300s", status, body)
	}

	onTheDay := subject(0, "de R$ 1.500,00 vence hoje (%s)")
	if strings.Contains(onTheDay.text, "Multa") || !strings.Contains(onTheDay.text, receiptURL.FindString(onTheDay.text)) {
		t.Errorf("the due-date reminder:\n%s", onTheDay.text)
	}
	// 1500.00 late 3 days: fee 2% = 30.00, interest 1% a month pro rata = 1500 × 0.01 × 3 / 30 = 1.50
	late := subject(-3, "em atraso desde %s: R$ 1.531,50 em ")
	for _, want := range []string{"Vencimento: " + brDate(-3), "Dias de atraso: 3", "Multa: R$ 30,00", "Juros: R$ 1,50",
		"Total em " + brDate(0) + ": R$ 1.531,50"} {
		if !strings.Contains(late.text, want) {
			t.Errorf("the +3 reminder's text lacks %q:\n%s", want, late.text)
		}
	}

	// a second run of the date sends nothing more
	again := f.remind(t, true)
	res, _ = again["result"].(map[string]any)
	if got := fmt.Sprintln(res["due"], res["sent"], res["before"]); again["state"] != storage.JobSucceeded || got != "4 0 3\n" {
		t.Errorf("second run %v: due, sent, before = %s, want 4 0 3", again, got)
	}
	if n := len(f.box.Messages()); n != 3 {
		t.Errorf("%d messages after the second run, want 3", n)
	}

	list := f.get(t, "/financial/reminders?sort=invoice_id&include[invoice]=id,total", http.StatusOK).data(t)
	var rows []string
	for _, row := range list {
		inv, _ := row["invoice"].(map[string]any)
		rows = append(rows, fmt.Sprintf("%v %v %v %v %v %v", num(t, row["invoice_id"]), num(t, row["rule"]), row["status"], row["to"],
			row["sent_at"] != nil, inv != nil))
	}
	want := []string{
		fmt.Sprintf("%d -5 sent paula@example.com true true", f.before),
		fmt.Sprintf("%d 0 sent paula@example.com true true", f.onTheDay),
		fmt.Sprintf("%d 3 sent paula@example.com true true", f.late),
		fmt.Sprintf("%d 0 skipped <nil> false true", f.noEmail),
	}
	if !slices.Equal(rows, want) {
		t.Errorf("/financial/reminders:\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if s := list[0]["subject"]; s != msgs[0].Subject && s != msgs[1].Subject && s != msgs[2].Subject {
		t.Errorf("listed subject %q is none of the messages'", s)
	}
	sent := f.get(t, "/financial/reminders?filter[status]=sent&filter[rule|ge]=1", http.StatusOK).ids(t)
	if len(sent) != 1 {
		t.Errorf("filter[status]=sent&filter[rule|ge]=1: %v, want the +3 reminder alone", sent)
	}
	r = f.do(t, http.MethodGet, "/financial/reminders", f.keyB, nil)
	if r.status != http.StatusOK || len(r.data(t)) != 0 {
		t.Errorf("company B lists %s", r.raw)
	}
	if r := f.do(t, http.MethodPost, "/financial/reminders", f.keyA, map[string]any{"invoice_id": f.late}); r.status != http.StatusMethodNotAllowed {
		t.Errorf("POST /financial/reminders: %d, want the read-only 405", r.status)
	}
}

// TestRemindersSenderName: with reminders_sender_name set, the messages
// are from that name (the From header's display name, the envelope and
// address unchanged) and signed with it, in the text and the HTML, in
// place of the company's name; the business that bills the invoice, when
// it is the name signed, is not repeated as "Emitida por". Set back to
// null, the company's name comes back.
func TestRemindersSenderName(t *testing.T) {
	f := reminderEnv(t)
	r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"reminders_enabled": true,
		"reminders_sender_name": "Horizonte"})
	if r.status != http.StatusOK || r.record(t)["reminders_sender_name"] != "Horizonte" {
		t.Fatalf("PUT /financial/settings: %d %s", r.status, r.raw)
	}
	if job := f.remind(t, false); job["state"] != storage.JobSucceeded {
		t.Fatalf("job: %v", job)
	}
	msgs := f.box.Messages()
	if len(msgs) != 3 {
		t.Fatalf("%d messages, want 3", len(msgs))
	}
	for _, m := range msgs {
		p := parseMail(t, m.Raw)
		if m.From != "cobranca@example.com" || p.fromName != "Horizonte" || !strings.HasSuffix(p.from, "<cobranca@example.com>") {
			t.Errorf("envelope %s, From %q (name %q): want Horizonte <cobranca@example.com>", m.From, p.from, p.fromName)
		}
		if signature(p.text) != "Horizonte" || !strings.Contains(p.html, "<p>Horizonte</p>") {
			t.Errorf("the message is not signed Horizonte:\n%s", p.text)
		}
		if strings.Contains(p.text, "Company A") || strings.Contains(p.html, "Company A") || strings.Contains(p.text, "Emitida por") {
			t.Errorf("the message names the company, or the business apart:\n%s", p.text)
		}
	}

	r = f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"reminders_sender_name": nil})
	if r.status != http.StatusOK || r.record(t)["reminders_sender_name"] != nil {
		t.Fatalf("PUT null: %d %s", r.status, r.raw)
	}
	f.exec(t, `DELETE FROM reminders WHERE company_id = $1`, f.compA)
	if job := f.remind(t, true); job["state"] != storage.JobSucceeded {
		t.Fatalf("job: %v", job)
	}
	msgs = f.box.Messages()
	if len(msgs) != 6 {
		t.Fatalf("%d messages, want 6", len(msgs))
	}
	for _, m := range msgs[3:] {
		p := parseMail(t, m.Raw)
		if p.fromName != "Company A" || signature(p.text) != "Company A" || !strings.Contains(p.text, "Emitida por: Horizonte") {
			t.Errorf("null sender name: From %q, text:\n%s", p.from, p.text)
		}
	}
}

// signature is the last line of a message's text: the name that signs it.
func signature(text string) string {
	all := strings.Split(strings.ReplaceAll(strings.TrimSpace(text), "\r\n", "\n"), "\n")
	return strings.TrimSpace(all[len(all)-1])
}

// TestRemindersOffSendNothing: a company whose reminders are off (the
// default) sends nothing, and its run says so.
func TestRemindersOffSendNothing(t *testing.T) {
	f := reminderEnv(t)
	job := f.remind(t, false)
	res, _ := job["result"].(map[string]any)
	if job["state"] != storage.JobSucceeded || res["enabled"] != false || len(f.box.Messages()) != 0 {
		t.Errorf("job %v, %d messages: want a run that sends nothing", job, len(f.box.Messages()))
	}
}

// TestReminderSettings: the settings' defaults, a change, and the
// problems of bad values (nothing stored).
func TestReminderSettings(t *testing.T) {
	f := setup(t)
	got := f.get(t, "/financial/settings", http.StatusOK).record(t)
	if fmt.Sprintln(got["reminders_enabled"], got["reminders_days"], got["reminders_reply_to"], got["reminders_sender_name"]) !=
		"false [-5 0 3 10] <nil> <nil>\n" {
		t.Errorf("defaults: %v", got)
	}
	r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"reminders_enabled": true,
		"reminders_days": []int{7, -3, 0}, "reminders_reply_to": "cobranca@example.com"})
	got = r.record(t)
	if r.status != http.StatusOK || fmt.Sprintln(got["reminders_enabled"], got["reminders_days"], got["reminders_reply_to"]) !=
		"true [-3 0 7] cobranca@example.com\n" {
		t.Errorf("PUT: %d %s", r.status, r.raw)
	}
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"reminders_days": []int{}}, "reminders_days"},
		{map[string]any{"reminders_days": []int{1, 1}}, "reminders_days"},
		{map[string]any{"reminders_days": []int{-61}}, "reminders_days"},
		{map[string]any{"reminders_days": "3"}, "reminders_days"},
		{map[string]any{"reminders_reply_to": "Cobrança <c@example.com>"}, "reminders_reply_to"},
		{map[string]any{"reminders_reply_to": "nobody"}, "reminders_reply_to"},
		{map[string]any{"reminders_enabled": "yes"}, "reminders_enabled"},
		{map[string]any{"reminders_sender_name": ""}, "reminders_sender_name"},
		{map[string]any{"reminders_sender_name": "   "}, "reminders_sender_name"},
		{map[string]any{"reminders_sender_name": "Horizonte\r\nBcc: all@example.com"}, "reminders_sender_name"},
		{map[string]any{"reminders_sender_name": "Horizonte\nImóveis"}, "reminders_sender_name"},
		{map[string]any{"reminders_sender_name": "Horizonte\tImóveis"}, "reminders_sender_name"},
		{map[string]any{"reminders_sender_name": strings.Repeat("é", 101)}, "reminders_sender_name"},
		{map[string]any{"reminders_sender_name": 12}, "reminders_sender_name"},
	} {
		r := f.do(t, http.MethodPut, "/financial/settings", f.keyA, c.body)
		if r.status != http.StatusUnprocessableEntity || !slices.Equal(r.problemFields(t), []string{c.field}) {
			t.Errorf("PUT %v: %d %s, want a 422 naming %s", c.body, r.status, r.raw, c.field)
		}
	}
	r = f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"reminders_reply_to": nil})
	got = r.record(t)
	if r.status != http.StatusOK || got["reminders_reply_to"] != nil || fmt.Sprint(got["reminders_days"]) != "[-3 0 7]" {
		t.Errorf("PUT reply_to null: %d %s", r.status, r.raw)
	}
	name := strings.Repeat("é", 100) // 100 characters (200 bytes) is the longest
	r = f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"reminders_sender_name": name})
	if r.status != http.StatusOK || r.record(t)["reminders_sender_name"] != name {
		t.Errorf("PUT a sender name of 100 characters: %d %s", r.status, r.raw)
	}
	r = f.do(t, http.MethodPut, "/financial/settings", f.keyA, map[string]any{"reminders_sender_name": "Horizonte\nImóveis"})
	if msg := r.problemMessages(t); r.status != http.StatusUnprocessableEntity || len(msg) != 1 ||
		!strings.Contains(msg[0], "must be one line") || !strings.Contains(msg[0], "U+000A") {
		t.Errorf("PUT a sender name of two lines: %d %s", r.status, r.raw)
	}
	if got := f.get(t, "/financial/settings", http.StatusOK).record(t); got["reminders_sender_name"] != name {
		t.Errorf("a refused change was stored: %v", got["reminders_sender_name"])
	}
}
