package cnab

import (
	"fmt"
	"slices"
)

// spec is one bank's layout: its records, line endings and rules.
type spec struct {
	bank     string
	bankName string
	layout   Layout
	// versions are the layout versions this table can write, the
	// default first; the tables read the chosen one from state.version.
	versions []string
	eol      string
	finalEOL bool   // whether the last record ends with eol too
	eof      string // written after everything else (Banrisul's 0x1A)

	header      []*record // written once, first
	batchHeader *record   // CNAB 240: opens each batch
	detail      []*record // written for each title
	batchTrail  *record   // CNAB 240: closes each batch
	trailer     []*record // written once, last
	// drop is the record of a request to drop a title, derived from the
	// entry's first detail record when the layout is registered
	// (dropRecord).
	drop *record
	// blankNumbers: the layout asks unused numeric fields in blanks, so
	// a drop's record leaves the entry's numbers blank.
	blankNumbers bool

	// required lists the beneficiary fields this bank needs, in the JSON
	// spelling: "agency", "account", "wallet", "covenant", ...
	required []string
	// wallets, when set, are the wallets the layout accepts.
	wallets []string
	// checkBeneficiary, when set, applies the bank's own rules on the
	// remittance's beneficiary before any record is filled.
	checkBeneficiary func(*state)
	// prepare derives the bank's values of a checked title (nosso número
	// and its check digit) and applies its own rules.
	prepare func(*state)
	// prepareDrop, when set, applies the bank's rules on the nosso
	// número to a checked drop.
	prepareDrop func(*state)
	// kinds maps a Kind to the bank's espécie code.
	kinds map[Kind]string
	// maxProtest is the longest protest term the layout can carry.
	maxProtest int
	// interest is how the layout takes interest for late payment.
	interest interestForm
}

// interestForm says whether a layout takes interest as an amount per day,
// a monthly rate, or either.
type interestForm uint8

const (
	interestPerDayOnly interestForm = iota // the zero value: most CNAB 400
	interestEither                         // FEBRABAN 240 codes 1 and 2
	interestMonthlyOnly
)

type specKey struct {
	bank   string
	layout Layout
}

var specs = map[specKey]*spec{}

func register(sp *spec) *spec {
	sp.drop = dropRecord(sp)
	for _, rec := range allRecordsOf(sp) {
		rec.compile(int(sp.layout))
	}
	specs[specKey{sp.bank, sp.layout}] = sp
	return sp
}

func lookupSpec(bank string, l Layout) (*spec, error) {
	if l != CNAB240 && l != CNAB400 {
		return nil, fmt.Errorf("layout %d: want 240 or 400", l)
	}
	sp, ok := specs[specKey{bank, l}]
	if !ok {
		return nil, fmt.Errorf("bank %q has no CNAB %d layout here (supported: %v)", bank, l, Supported())
	}
	return sp, nil
}

func allRecordsOf(sp *spec) []*record {
	var out []*record
	out = append(out, sp.header...)
	if sp.batchHeader != nil {
		out = append(out, sp.batchHeader, sp.batchTrail)
	}
	out = append(out, sp.detail...)
	if sp.drop != nil {
		out = append(out, sp.drop)
	}
	return append(out, sp.trailer...)
}

// Supported lists the bank and layout pairs this package writes, as
// "001/240", sorted.
func Supported() []string {
	var out []string
	for k := range specs {
		out = append(out, fmt.Sprintf("%s/%d", k.bank, k.layout))
	}
	slices.Sort(out)
	return out
}

// Versions returns the layout versions a bank's layout accepts in
// Remittance.Version, the default first; nil when the pair is not
// supported.
func Versions(bank string, l Layout) []string {
	sp, err := lookupSpec(bank, l)
	if err != nil {
		return nil
	}
	return slices.Clone(sp.versions)
}

// kindCode returns the bank's espécie code of the current title.
func (s *state) kindCode() string {
	k := s.t.Kind
	if k == "" {
		k = KindDuplicataMercantil
	}
	return s.spec.kinds[k]
}

// Required lists the beneficiary fields a bank's layout requires, in
// their JSON spelling ("agency", "covenant", ...), as NewWriter checks
// them; nil when the pair is not supported.
func Required(bank string, l Layout) []string {
	sp, err := lookupSpec(bank, l)
	if err != nil {
		return nil
	}
	return slices.Clone(sp.required)
}
