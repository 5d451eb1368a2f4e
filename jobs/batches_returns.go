package jobs

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/propfin/propfin/cnab"
	"github.com/propfin/propfin/cnab/retorno"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// KindBatchReturn reads a bank's return file for a kind of batch.
const KindBatchReturn = "batch:return"

// BatchReturnPayload names the return file (stored by the upload) and the
// kind of batch it is read for. Once per file.
type BatchReturnPayload struct {
	Batch  string `json:"batch"`
	FileID int64  `json:"file_id"`
}

// Check implements Checker.
func (p BatchReturnPayload) Check() []finance.Problem {
	return checkBatchPayload(p.Batch, "file_id", p.FileID)
}

// UniqueKey implements Keyed: one job per stored file (the same bytes
// uploaded again are the same file).
func (p BatchReturnPayload) UniqueKey() string {
	return p.Batch + ":return:" + strconv.FormatInt(p.FileID, 10)
}

// NewBatchReturn is the submission of the job reading a stored return
// file.
func NewBatchReturn(bt *storage.BatchType, fileID int64) Submission {
	raw, _ := json.Marshal(BatchReturnPayload{Batch: bt.Name, FileID: fileID}) // plain values: cannot fail
	return Submission{Kind: KindBatchReturn, Payload: raw}
}

// CheckReturnFile reads the header of an uploaded return file for a kind
// of batch: a file that is not a return file read here is refused with the
// reader's reason (a 422 naming file), before anything is stored. When
// the upload names an account (acc; nil when none is named), a file of
// another bank, or of another agency and account, is refused too (a 422
// naming account_id), as its job would refuse it; when it names none, a
// file of a bank where the company has no account is refused (a 422
// naming file, the bank and the company's accounts: bankAccounts), and so
// is a payment return naming an account the company does not have at
// that bank (paymentAccounts).
func CheckReturnFile(ctx context.Context, q storage.DBTX, companyID int64, k *BatchKind, content []byte, acc *storage.BankAccount) error {
	_, err := CheckReturnUpload(ctx, q, companyID, k, content, acc)
	return err
}

// CheckReturnUpload is CheckReturnFile, answering also the account an
// upload without one is of: for a payment return whose header names one
// account of the company, that account (its payments are sent from it,
// and the file is stored as uploaded for it: the same bytes uploaded
// naming it are the same file); otherwise the account named (acc), or 0.
func CheckReturnUpload(ctx context.Context, q storage.DBTX, companyID int64, k *BatchKind, content []byte, acc *storage.BankAccount) (int64, error) {
	if len(content) == 0 {
		return 0, finance.InvalidInput([]finance.Problem{{Field: "file", Message: "is empty"}})
	}
	rd, err := retorno.NewReader(bytes.NewReader(content), retorno.Options{})
	if err != nil {
		return 0, finance.InvalidInput([]finance.Problem{{Field: "file", Message: err.Error()}})
	}
	if err := checkReturnKinds(k, content); err != nil {
		return 0, err
	}
	named := fileAccounts(rd.Header(), firstBeneficiary(rd))
	if acc != nil {
		return acc.ID, checkFileAccount(acc, rd.Header(), named)
	}
	ids, err := bankAccounts(ctx, q, companyID, rd.Header())
	if err != nil || k.Type != storage.PaymentBatch {
		return 0, err
	}
	if ids, err = paymentAccounts(ctx, q, companyID, rd.Header(), named, ids); err != nil || len(ids) != 1 {
		return 0, err
	}
	return ids[0], nil
}

// returnRoutes are where the return files of each kind of line are
// uploaded (docs/api.md, the batches' returnFile).
var returnRoutes = map[retorno.Kind]string{
	retorno.KindTitle:   "POST /financial/ticketBatch/returnFile",
	retorno.KindPayment: "POST /financial/paymentBatch/returnFile",
}

// checkReturnKinds refuses a return file none of whose lines k reads and
// some of whose lines are of another kind (a file of payments uploaded to
// the collection batches): its job would read nothing, and the 422 names
// where it goes. A file that mixes both kinds is taken, each route reading
// its own lines.
func checkReturnKinds(k *BatchKind, content []byte) error {
	rd, err := retorno.NewReader(bytes.NewReader(content), retorno.Options{})
	if err != nil {
		return nil // the caller's reader has said why
	}
	counts := map[retorno.Kind]int{}
	for ev, err := range rd.All() {
		if err == nil {
			counts[ev.Kind]++
		}
	}
	if counts[k.Events] > 0 {
		return nil
	}
	for kind, n := range counts {
		if route, ok := returnRoutes[kind]; ok && n > 0 {
			return finance.InvalidInput([]finance.Problem{{Field: "file", Message: fmt.Sprintf(
				"the file holds %d lines of %ss and none of %ss, which these batches read: upload it to %s",
				n, kind, k.Events, route)}})
		}
	}
	return nil
}

// paymentAccounts are the accounts among ids (the company's at the file's
// bank) a payment return uploaded without account_id is read for: those
// its header names (the account its payments were debited from, leading
// zeros and check digits as checkFileAccount compares them), all of them
// when it names none. A file naming an account none of them is, is a 422
// naming file, the account the file is of and the company's accounts at
// that bank, as a file of a bank where the company has no account is
// (bankAccounts): its payments were sent from another account, which
// payments of the company's own accounts with the same references must
// not be taken for.
func paymentAccounts(ctx context.Context, q storage.DBTX, companyID int64, h retorno.Header, named []retorno.Account, ids []int64) ([]int64, error) {
	if len(named) == 0 {
		return ids, nil
	}
	var out []int64
	var list []string
	for _, id := range ids {
		acc, err := storage.ReadBankAccount(ctx, q, companyID, id)
		if err != nil {
			return nil, err
		}
		if isNamed(acc, named) {
			out = append(out, id)
		}
		list = append(list, fmt.Sprintf("%d (agency %s, account %s)", id, withDigit(acc.Agency, acc.AgencyDigit),
			withDigit(acc.Account, acc.AccountDigit)))
	}
	if len(out) > 0 {
		return out, nil
	}
	a := named[0]
	return nil, finance.InvalidInput([]finance.Problem{{Field: "file", Message: fmt.Sprintf(
		"the file is of agency %s, account %s at bank %s (%s), and no account of the company is (its accounts at bank %s: %s): "+
			"create the account, or upload the file for the company whose account it is", withDigit(a.Agency, a.AgencyDigit),
		withDigit(a.Account, a.AccountDigit), h.Bank, h.BankName, h.Bank, strings.Join(list, ", "))}})
}

// bankAccounts are the company's accounts at the bank of a file's header;
// none is a 422 naming file, the bank and the accounts the company has:
// every line of such a file would be unmatched (a file uploaded to the
// wrong company, or an account not created yet).
func bankAccounts(ctx context.Context, q storage.DBTX, companyID int64, h retorno.Header) ([]int64, error) {
	ids, err := storage.AccountsOfBank(ctx, q, companyID, h.Bank)
	if err != nil || len(ids) > 0 {
		return ids, err
	}
	all, err := storage.AccountBanks(ctx, q, companyID)
	if err != nil {
		return nil, err
	}
	has := "the company has no accounts"
	if len(all) > 0 {
		list := make([]string, len(all))
		for i, a := range all {
			list[i] = fmt.Sprintf("%d at bank %q", a.ID, a.Bank)
		}
		has = "its accounts: " + strings.Join(list, ", ")
	}
	return nil, finance.InvalidInput([]finance.Problem{{Field: "file", Message: fmt.Sprintf(
		"the file is of bank %s (%s) and the company has no account at bank %s (%s): create the account, "+
			"or upload the file for the company whose account it is", h.Bank, h.BankName, h.Bank, has)}})
}

// firstBeneficiary is the beneficiary's account the first title of a file
// names; empty when it names none.
func firstBeneficiary(rd *retorno.Reader) retorno.Account {
	for ev, err := range rd.All() {
		if err == nil {
			return ev.Beneficiary
		}
	}
	return retorno.Account{}
}

// fileAccounts are the accounts a file names: its header's and its first
// title's, where they name one.
func fileAccounts(h retorno.Header, first retorno.Account) []retorno.Account {
	var out []retorno.Account
	for _, a := range []retorno.Account{h.Beneficiary, first} {
		if a.Agency != "" || a.Account != "" {
			out = append(out, a)
		}
	}
	return out
}

// checkFileAccount refuses a return file that is not of the account named
// (a 422 naming account_id, with both): of another bank, or naming only
// other agencies or accounts. A file is the account's when the account
// is one of those it names (its header's or its first title's: a
// cooperative's header may name the cooperative's own account, as Sicoob
// files do), leading zeros aside, the account's check digit allowed as
// part of the number, as some layouts write it; a file that names none is
// taken.
func checkFileAccount(acc *storage.BankAccount, h retorno.Header, named []retorno.Account) error {
	refuse := func(format string, args ...any) error {
		return finance.InvalidInput([]finance.Problem{{Field: "account_id", Message: fmt.Sprintf(format, args...)}})
	}
	if h.Bank != acc.Bank {
		return refuse("account %d is at bank %q; the file is of bank %s", acc.ID, acc.Bank, h.Bank)
	}
	for _, a := range named {
		if sameAccount(acc, a) {
			return nil
		}
	}
	if len(named) == 0 {
		return nil
	}
	a := named[0]
	if a.Agency != "" && !sameNumber(a.Agency, acc.Agency, acc.AgencyDigit) {
		return refuse("account %d is at agency %s; the file is of agency %s", acc.ID, acc.Agency, a.Agency)
	}
	return refuse("account %d is account %s; the file is of account %s", acc.ID, withDigit(acc.Account, acc.AccountDigit),
		withDigit(a.Account, a.AccountDigit))
}

// sameAccount reports whether an account a file names is acc: its agency
// and its account, each where the file gives it.
func sameAccount(acc *storage.BankAccount, a retorno.Account) bool {
	return (a.Agency == "" || sameNumber(a.Agency, acc.Agency, acc.AgencyDigit)) &&
		(a.Account == "" || sameNumber(a.Account, acc.Account, acc.AccountDigit))
}

// sameNumber reports whether a number a file writes is the stored number,
// leading zeros aside, with or without its check digit; a stored number
// that is empty matches anything.
func sameNumber(file, stored, digit string) bool {
	f, n := strings.TrimLeft(file, "0"), strings.TrimLeft(stored, "0")
	return n == "" || f == n || f == n+digit
}

// withDigit writes a number with its check digit, as people read it.
func withDigit(number, digit string) string {
	if digit == "" {
		return number
	}
	return number + "-" + digit
}

// ReturnRead is a return file as its job reads it: the stored file, what
// its header says, the accounts its numbers are looked for in (the one
// the upload named, else the company's accounts at the file's bank), and
// the job.
type ReturnRead struct {
	File     *storage.ReturnFile
	Header   retorno.Header
	Accounts []int64
	JobID    int64
	// Warnings are what the reader read but not as the layout has it
	// (lines whose trailing blanks were stripped), one per kind.
	Warnings []string
}

// ReturnItem is one line of a return file as read: its event, or the
// reader's error for it.
type ReturnItem struct {
	Line  int
	Event retorno.Event
	Err   *retorno.LineError
}

// returnChunk is how many lines one chunk of the job reads.
const returnChunk = 2000

// returnWorkers is how many chunks of a return file are in flight at once
// when no member is named in two of them (returnChunksApart): two
// transactions, each on its own lines and members, so that the
// settlement's writes use two of the database's CPUs.
const returnWorkers = MaxChunksAtOnce

// returnChunksApart reports whether every member the file's lines name
// (BatchKind.Names) is named in one chunk only. Then the chunks may run
// two at a time: the lines of one title or payment are still read in the
// order of the file, in one transaction. Otherwise (a title confirmed in
// one part of the file and paid in another) the chunks run one after the
// other. The answer depends on the file alone, so a resumed run decides
// as the first did.
func returnChunksApart(k *BatchKind, items []ReturnItem) bool {
	chunkOf := make(map[string]int, len(items))
	for i := range items {
		it := &items[i]
		if it.Err != nil || it.Event.Kind != k.Events {
			continue
		}
		name := k.Names(&it.Event)
		if name == "" {
			continue
		}
		chunk := i / returnChunk
		if first, ok := chunkOf[name]; ok && first != chunk {
			return false
		}
		chunkOf[name] = chunk
	}
	return true
}

// BatchReturnResult is the result of a batch:return job, besides the
// per-line report joined from the chunks.
type BatchReturnResult struct {
	Batch    string `json:"batch"`
	FileID   int64  `json:"file_id"`
	SHA256   string `json:"sha256"`
	Bank     string `json:"bank"`
	Layout   int    `json:"layout"`
	Sequence int    `json:"sequence"`
	Created  string `json:"created"`
	Lines    int    `json:"lines"`
	// Warnings: what the file had but not as its layout has it, read all
	// the same (retorno.Reader.Warnings).
	Warnings []string       `json:"warnings,omitempty"`
	Outcomes map[string]int `json:"outcomes"`
}

// BatchReturnKind declares batch:return: the stored file is read with
// cnab/retorno, its lines taken two thousand at a time (each chunk one
// transaction with its record): the kind acts on the lines not read
// before (storage.ReturnLinesRead), and what it did is written once per
// line (storage.RecordReturnLines, keyed by file and line: a line is
// acted on once). The result counts the outcomes and
// lists every line, in order: what was done, or why nothing was.
func BatchReturnKind() *Kind {
	return Define(KindBatchReturn, Options{Heavy: true, Queue: QueueCritical, SucceededEvent: storage.EventBatchReturnProcessed}, runBatchReturn)
}

func runBatchReturn(ctx context.Context, r *Run, p BatchReturnPayload) (any, error) {
	k := batchKinds[p.Batch]
	rf, items, err := readReturnFile(ctx, r, k, p.FileID)
	if err != nil {
		return nil, err
	}
	n := (len(items) + returnChunk - 1) / returnChunk
	do := func(ctx context.Context, tx pgx.Tx, i int) (any, int64, error) {
		part := items[i*returnChunk : min((i+1)*returnChunk, len(items))]
		lines, err := readReturnChunk(ctx, tx, k, rf, part)
		if err != nil {
			return nil, 0, err
		}
		return returnChunkOutput(k, lines), int64(len(part)), nil
	}
	var outputs []json.RawMessage
	if returnChunksApart(k, items) {
		outputs, err = r.ChunksAtOnce(ctx, n, returnWorkers, int64(len(items)), do)
		if err == nil && n > 1 {
			// Two chunks at a time may have paid titles of one contract
			// at once, each refreshing its status without the other's
			// payment: with both committed, the marked contracts are
			// refreshed again (docs/jobs.md, "A write refreshes its
			// contracts").
			_, err = storage.RefreshMarkedPaymentStatuses(ctx, r.Pool(), r.CompanyID())
		}
	} else {
		outputs, err = r.Chunks(ctx, n, int64(len(items)), do)
	}
	if err != nil {
		return nil, err
	}
	h := rf.Header
	res := BatchReturnResult{Batch: k.Type.Name, FileID: rf.File.ID, SHA256: hex.EncodeToString(rf.File.SHA256),
		Bank: h.Bank, Layout: int(h.Layout), Sequence: h.Sequence, Created: h.Created.String(), Lines: len(items),
		Warnings: rf.Warnings}
	return joinReturnChunks(res, outputs)
}

// readReturnFile reads the stored file whole: its header and every line
// (events and unreadable lines), and the accounts to match its numbers
// in. A file the reader refuses, or whose account is at another bank,
// fails the job at once.
func readReturnFile(ctx context.Context, r *Run, k *BatchKind, fileID int64) (*ReturnRead, []ReturnItem, error) {
	f, err := storage.ReadReturnFile(ctx, r.Pool(), k.Type, r.CompanyID(), fileID)
	if err != nil {
		return nil, nil, permanentIf(err, finance.NotFound)
	}
	rd, err := retorno.NewReader(bytes.NewReader(f.Content), retorno.Options{})
	if err != nil {
		return nil, nil, permanent(finance.InvalidInput([]finance.Problem{{Field: "file", Message: err.Error()}}))
	}
	rf := &ReturnRead{File: f, Header: rd.Header(), JobID: r.Job.ID}
	var items []ReturnItem
	for ev, err := range rd.All() {
		var le *retorno.LineError
		switch {
		case errors.As(err, &le):
			items = append(items, ReturnItem{Line: le.Line, Err: le})
		case err != nil:
			return nil, nil, permanent(finance.InvalidInput([]finance.Problem{{Field: "file", Message: err.Error()}}))
		default:
			items = append(items, ReturnItem{Line: ev.Line, Event: ev})
		}
	}
	rf.Warnings = rd.Warnings()
	if rf.Accounts, err = returnAccounts(ctx, r, rf, items); err != nil {
		return nil, nil, err
	}
	return rf, items, nil
}

// returnAccounts are the accounts a file's numbers are looked for in: the
// one the upload named (of the file's bank, agency and account), else the
// company's accounts at the file's bank. A file uploaded without
// account_id that names accounts of one agreement (accounts sharing their
// titles' numbers, one per layout) is refused (a 422 naming account_id):
// which of them sent the titles a collection file speaks of cannot be
// told.
func returnAccounts(ctx context.Context, r *Run, rf *ReturnRead, items []ReturnItem) ([]int64, error) {
	bank := rf.Header.Bank
	var first retorno.Account
	for i := range items {
		if items[i].Err == nil {
			first = items[i].Event.Beneficiary
			break
		}
	}
	named := fileAccounts(rf.Header, first)
	if id := rf.File.AccountID; id != 0 {
		acc, err := storage.ReadBankAccount(ctx, r.Pool(), r.CompanyID(), id)
		if err != nil {
			return nil, err
		}
		if err := checkFileAccount(acc, rf.Header, named); err != nil {
			return nil, permanent(err)
		}
		return []int64{id}, nil
	}
	if rf.File.Type == storage.TicketBatch {
		shared, err := storage.SharedAgreements(ctx, r.Pool(), r.CompanyID(), bank)
		if err != nil {
			return nil, err
		}
		if err := checkSharedAgreements(shared, named); err != nil {
			return nil, permanent(err)
		}
	}
	ids, err := bankAccounts(ctx, r.Pool(), r.CompanyID(), rf.Header)
	if err == nil && rf.File.Type == storage.PaymentBatch {
		ids, err = paymentAccounts(ctx, r.Pool(), r.CompanyID(), rf.Header, named, ids)
	}
	if finance.ErrorCode(err) == finance.Invalid {
		return nil, permanent(err)
	}
	return ids, err
}

// checkSharedAgreements refuses a file uploaded without account_id when
// two or more accounts of one agreement (shared) are accounts it names
// (all of them, when it names none): the 422 names them and asks for
// account_id.
func checkSharedAgreements(shared [][]storage.BankAccount, named []retorno.Account) error {
	for _, accs := range shared {
		var ids []string
		for i := range accs {
			if isNamed(&accs[i], named) {
				ids = append(ids, fmt.Sprint(accs[i].ID))
			}
		}
		if len(ids) < 2 {
			continue
		}
		a := accs[0]
		return finance.InvalidInput([]finance.Problem{{Field: "account_id", Message: fmt.Sprintf(
			"accounts %s are one agreement at bank %s (agency %s, account %s, wallet %q, covenant %q) and share their "+
				"titles' numbers; the file is of that account: upload it with account_id, the account whose "+
				"remittances it answers", strings.Join(ids, ", "), a.Bank, withDigit(a.Agency, a.AgencyDigit),
			withDigit(a.Account, a.AccountDigit), a.Wallet, a.Covenant)}})
	}
	return nil
}

// isNamed reports whether acc is one of the accounts a file names; a file
// naming none names every account of its bank.
func isNamed(acc *storage.BankAccount, named []retorno.Account) bool {
	if len(named) == 0 {
		return true
	}
	for _, a := range named {
		if sameAccount(acc, a) {
			return true
		}
	}
	return false
}

// permanentIf makes a coded error of one of codes permanent.
func permanentIf(err error, codes ...finance.Code) error {
	for _, c := range codes {
		if finance.ErrorCode(err) == c {
			return permanent(err)
		}
	}
	return err
}

// readReturnChunk has the kind act on the lines of a part of the file not
// read before, records what it did with each (one row per line, whose key
// fails the chunk if another transaction recorded the line meanwhile), and
// returns the part's report in line order (lines read before are
// duplicates).
func readReturnChunk(ctx context.Context, tx pgx.Tx, k *BatchKind, rf *ReturnRead, part []ReturnItem) ([]storage.ReturnLine, error) {
	nums := make([]int, len(part))
	for i, it := range part {
		nums[i] = it.Line
	}
	read, err := storage.ReturnLinesRead(ctx, tx, rf.File, nums)
	if err != nil {
		return nil, err
	}
	var fresh []ReturnItem
	for _, it := range part {
		if !read[it.Line] {
			fresh = append(fresh, it)
		}
	}
	done, err := applyReturnItems(ctx, tx, k, rf, fresh)
	if err != nil {
		return nil, err
	}
	if err := storage.RecordReturnLines(ctx, tx, rf.File, rf.JobID, done); err != nil {
		return nil, err
	}
	byLine := make(map[int]storage.ReturnLine, len(done))
	for _, l := range done {
		byLine[l.Line] = l
	}
	out := make([]storage.ReturnLine, len(part))
	for i, it := range part {
		l, ok := byLine[it.Line]
		if !ok {
			l = storage.ReturnLine{Line: it.Line, Outcome: storage.OutcomeDuplicate,
				Message: "read before from this file: nothing was done again"}
			if it.Err == nil {
				l.Code, l.Occurrence, l.OurNumber = it.Event.Code, string(it.Event.Occurrence), it.Event.FullOurNumber()
			}
		}
		if it.Err == nil {
			l.DocumentNumber = it.Event.DocumentNumber
		}
		out[i] = l
	}
	return out, nil
}

// applyReturnItems reports the unreadable lines and the events of another
// kind (a payment in a collection return), and hands the others to the
// kind.
func applyReturnItems(ctx context.Context, tx pgx.Tx, k *BatchKind, rf *ReturnRead, items []ReturnItem) ([]storage.ReturnLine, error) {
	var out []storage.ReturnLine
	var mine []ReturnItem
	for _, it := range items {
		switch {
		case it.Err != nil:
			out = append(out, storage.ReturnLine{Line: it.Line, Outcome: storage.OutcomeUnreadable, Message: it.Err.Error()})
		case it.Event.Kind != k.Events:
			ev := &it.Event
			out = append(out, storage.ReturnLine{Line: it.Line, Code: ev.Code, Occurrence: string(ev.Occurrence),
				OurNumber: ev.FullOurNumber(), Outcome: storage.OutcomeRecorded,
				Message: fmt.Sprintf("a %s, not read by %s batches: nothing was done", ev.Kind, k.Type.Name)})
		default:
			mine = append(mine, it)
		}
	}
	if len(mine) == 0 {
		return out, nil
	}
	lines, err := k.Apply(ctx, tx, rf, mine)
	if err != nil {
		return nil, err
	}
	events := make(map[int]*retorno.Event, len(mine))
	for i := range mine {
		events[mine[i].Line] = &mine[i].Event
	}
	for i := range lines {
		if ev := events[lines[i].Line]; ev != nil {
			reportAmounts(&lines[i], ev)
		}
	}
	return append(out, lines...), nil
}

// reportAmounts adds to a line's report the money the bank reports on it
// where nothing was done with it: a line that matched nothing
// (unmatched, ambiguous) or was not settled gives its amounts (paid,
// credited and tariff on a paid title even when zero; the others where
// not zero) and its dates, so that the money can be found in the account;
// every other paid title gives what was credited beside what was paid.
// Amounts the kind set already are kept.
func reportAmounts(l *storage.ReturnLine, ev *retorno.Event) {
	set := func(dst **decimal.Decimal, c retorno.Cents, always bool) {
		if *dst == nil && (always || c != 0) {
			d := c.Decimal()
			*dst = &d
		}
	}
	paidTitle := ev.Occurrence == retorno.Paid && ev.Kind == retorno.KindTitle
	switch l.Outcome {
	case storage.OutcomeUnmatched, storage.OutcomeAmbiguous, storage.PaymentNotSettled:
	default:
		if paidTitle {
			set(&l.Credited, ev.Credited, true)
		}
		return
	}
	set(&l.Amount, ev.Amount, false)
	set(&l.Paid, ev.Paid, paidTitle)
	set(&l.Credited, ev.Credited, paidTitle)
	set(&l.Tariff, ev.Tariff, paidTitle)
	for _, a := range []struct {
		dst **decimal.Decimal
		c   retorno.Cents
	}{{&l.Interest, ev.Interest}, {&l.Fine, ev.Fine}, {&l.Discount, ev.Discount}, {&l.Abatement, ev.Abatement},
		{&l.IOF, ev.IOF}, {&l.OtherExpenses, ev.OtherExpenses}, {&l.OtherCredits, ev.OtherCredits}} {
		set(a.dst, a.c, false)
	}
	l.Date, l.CreditDate = ev.Date.String(), ev.CreditDate.String()
}

// returnChunkOutput is what a chunk records: its outcomes counted and its
// lines as the report lists them (JSON, joined as they are).
type chunkReport struct {
	Outcomes map[string]int  `json:"outcomes"`
	Lines    json.RawMessage `json:"lines"`
}

func returnChunkOutput(k *BatchKind, lines []storage.ReturnLine) chunkReport {
	out := chunkReport{Outcomes: map[string]int{}}
	b := make([]byte, 0, 128*len(lines))
	b = append(b, '[')
	for i, l := range lines {
		out.Outcomes[l.Outcome]++
		if i > 0 {
			b = append(b, ',')
		}
		b = appendReturnLine(b, k.MemberKey, l)
	}
	out.Lines = append(b, ']')
	return out
}

// appendReturnLine writes one line of the report as JSON: the line, what
// the bank said, the member it is about (under memberKey), the outcome and
// message, and the amounts of a payment (and, where nothing was done with
// them, every amount and date the line reports: reportAmounts).
func appendReturnLine(b []byte, memberKey string, l storage.ReturnLine) []byte {
	b = append(b, `{"line":`...)
	b = strconv.AppendInt(b, int64(l.Line), 10)
	b = appendField(b, "code", l.Code)
	b = appendField(b, "occurrence", l.Occurrence)
	b = appendField(b, "our_number", l.OurNumber)
	b = appendField(b, "document_number", l.DocumentNumber)
	if l.MemberID != 0 {
		b = append(b, `,"`...)
		b = append(b, memberKey...)
		b = append(b, `":`...)
		b = strconv.AppendInt(b, l.MemberID, 10)
	}
	b = append(b, `,"outcome":`...)
	b = strconv.AppendQuote(b, l.Outcome)
	b = appendField(b, "message", l.Message)
	b = appendMoney(b, "paid", l.Paid)
	b = appendMoney(b, "expected", l.Expected)
	b = appendMoney(b, "difference", l.Difference)
	b = appendMoney(b, "tariff", l.Tariff)
	b = appendMoney(b, "credited", l.Credited)
	b = appendMoney(b, "amount", l.Amount)
	b = appendMoney(b, "interest", l.Interest)
	b = appendMoney(b, "fine", l.Fine)
	b = appendMoney(b, "discount", l.Discount)
	b = appendMoney(b, "abatement", l.Abatement)
	b = appendMoney(b, "iof", l.IOF)
	b = appendMoney(b, "other_expenses", l.OtherExpenses)
	b = appendMoney(b, "other_credits", l.OtherCredits)
	b = appendField(b, "date", l.Date)
	b = appendField(b, "credit_date", l.CreditDate)
	return append(b, '}')
}

// appendMoney writes ,"name":1234.56 for an amount that is given: money,
// a number with two decimal places.
func appendMoney(b []byte, name string, d *decimal.Decimal) []byte {
	if d == nil {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, name...)
	b = append(b, `":`...)
	return finance.Money(*d).AppendJSON(b)
}

// appendField writes ,"name":"value" for a value that is not empty, the
// value escaped as JSON.
func appendField(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, name...)
	b = append(b, `":`...)
	enc, _ := json.Marshal(value) // a string: cannot fail; escapes as JSON does
	return append(b, enc...)
}

// joinReturnChunks writes the job's result from its chunks' outputs: the
// file, the outcomes counted, and the report, the chunks' lines joined as
// they are.
func joinReturnChunks(res BatchReturnResult, outputs []json.RawMessage) (json.RawMessage, error) {
	res.Outcomes = map[string]int{}
	lists := make([][]byte, 0, len(outputs))
	for i, raw := range outputs {
		var out chunkReport
		if err := json.Unmarshal(raw, &out); err != nil {
			return nil, fmt.Errorf("chunk %d output: %w", i, err)
		}
		for o, n := range out.Outcomes {
			res.Outcomes[o] += n
		}
		list := bytes.TrimSpace(out.Lines)
		if len(list) < 2 || list[0] != '[' || list[len(list)-1] != ']' {
			return nil, fmt.Errorf("chunk %d output: lines is not a list", i)
		}
		if inner := bytes.TrimSpace(list[1 : len(list)-1]); len(inner) > 0 {
			lists = append(lists, inner)
		}
	}
	head, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encode return result: %w", err)
	}
	b := append(head[:len(head)-1], `,"report":[`...)
	b = append(b, bytes.Join(lists, []byte(","))...)
	return append(b, "]}"...), nil
}

// layoutOf is an account's layout as package cnab names it.
func layoutOf(layout string) cnab.Layout {
	if layout == "cnab240" {
		return cnab.CNAB240
	}
	return cnab.CNAB400
}
