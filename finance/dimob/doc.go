// Package dimob writes the DIMOB (Declaração de Informações sobre
// Atividades Imobiliárias, IN RFB 1.115/2010), the yearly file in which a
// property manager tells the Receita Federal what its rentals paid each
// owner, month by month, and which sales it brokered.
//
// The package is pure: a Declaration in (the declarant, one Rental per
// contract and owner with its twelve months, the brokered Sales), bytes
// out. Options.Check lists every problem of a declaration, blocking ones
// (an invalid CPF or CNPJ, an incomplete address, a municipality without
// its code, a negative amount, ...) and warnings (a negative net to an
// owner, a name cut to its field); Options.Write writes the file in the
// import layout of the Receita's program (header DIMOB, R01, R02, R04,
// T9; the 7-digit sequence) only when nothing blocks.
//
// The CPF/CNPJ check comes from the caller (Options.ValidTaxID, which is
// pix.ValidTaxID): finance imports nothing else of ours. LookupIBGE,
// LookupCity and FindMunicipality give the 4-digit RFB/SIAFI municipality
// code the file writes, from the embedded table in municipalities/.
//
// What is read from the ledger (the month the tenant paid, the dimob flag
// of contracts and items) is the caller's; docs/dimob.md has the layout,
// position by position with its sources, the checks and that division.
package dimob
