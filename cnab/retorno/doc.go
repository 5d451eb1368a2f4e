// Package retorno reads bank return files (arquivos retorno) in the CNAB
// 240 and CNAB 400 layouts: the collection returns of the banks package
// cnab writes remittances for, and the CNAB 240 payment returns (pagamento
// a fornecedores) of the banks package pagamento writes payments for.
//
// A file is read as a stream: NewReader reads the header, tells the
// layout by the length of its lines (240 or 400 characters) and the bank
// by the header's bank code, and refuses a file that is not a return
// file of a layout read here, or not of the bank and layout the caller
// expects, with an error that says why (ErrRefused). Reader.Next (or
// Reader.All) then returns one Event per title or payment: the bank's
// identifiers (nosso número with and without its check digit, document
// number, the company's own reference), the bank's occurrence code with
// its meaning and class (entry confirmed, paid, written off, rejected,
// ...), the reasons that came with it, the amounts (face value, paid,
// credited, fee, interest, fine, discount, abatement) and the dates. A
// code the bank's table does not list is reported with Occurrence
// Unknown, never dropped. Memory does not grow with the file.
//
// Lines may end in CR LF or LF, the last one may have no line break, and
// a file written in UTF-8 is read as if in one byte per character. A line
// that cannot be read is returned as a *LineError naming the line, the
// record and the field; reading goes on with the next line.
//
// Every record of every bank is described by one table of fields: the
// name the bank's document gives the field, its first and last position
// as the document prints them, its kind and the Event field it fills.
// The documents followed and their versions are in docs/cnab-retorno.md.
package retorno
