package retorno

import "github.com/propfin/propfin/cnab"

// The CNAB 400 collection returns, one per bank. Each has one detail
// record per title and occurrence.

// Itaú (341): "Cobrança Bancária – Intercâmbio Eletrônico de Arquivos",
// layout de 400 posições, Julho/2021, 3.2 Arquivo Retorno. "Valor
// principal" (254-266) is the amount credited to the account ("valor
// lançado em conta corrente", net of the tariff); what the payer paid is
// that and the tariff (176-188). Record type 3 (boleto Pix) is read into
// the title it follows; type 4 (rateio de crédito) carries no occurrence.
var itau400 = register(&layout{
	bank: "341", bankName: "Itaú Unibanco", width: cnab.CNAB400,
	document: "Itaú – Cobrança Bancária, Intercâmbio Eletrônico de Arquivos, 400 posições, Julho/2021",
	details: map[byte]*record{'1': {name: "detail", fields: []field{
		fd(38, 62, "Uso da empresa", kindText, toControl),
		fd(83, 85, "Carteira", kindText, toWallet),
		fd(86, 93, "Nosso número", kindDigits, toOurNumber),
		fd(94, 94, "DAC nosso número", kindText, toOurDigit),
		fd(109, 110, "Cód. de ocorrência", kindCode, toCode),
		fd(111, 116, "Data de ocorrência", kindDate6, toDate),
		fd(117, 126, "Nº do documento", kindText, toDocument),
		fd(147, 152, "Vencimento", kindDate6, toDue),
		fd(153, 165, "Valor do título", kindMoney, toAmount),
		fd(176, 188, "Tarifa de cobrança", kindMoney, toTariff),
		fd(215, 227, "Valor do IOF", kindMoney, toIOF),
		fd(228, 240, "Valor abatimento", kindMoney, toAbatement),
		fd(241, 253, "Descontos", kindMoney, toDiscount),
		fd(254, 266, "Valor principal (valor lançado em conta corrente)", kindMoney, toCredited),
		fd(267, 279, "Juros de mora/multa", kindMoney, toInterest),
		fd(280, 292, "Outros créditos", kindMoney, toOtherCredits),
		fd(296, 301, "Data crédito", kindDate6, toCreditDate),
		fd(325, 354, "Nome do pagador", kindText, toPayer),
		fd(378, 385, "Erros", kindReasons, toReasons),
		fd(393, 394, "Cód. de liquidação", kindText, toChannel),
	}}},
	skip:     "4",
	pix:      itauPIX,
	amounts:  paidFromCredited,
	channels: itauChannels400,
	sequence: [2]int{109, 113},
	codes:    itauCodes,
})

// Bradesco (237): "Manual de Procedimentos Operacionais para Troca de
// Arquivos – Cobrança Bradesco", CNAB 400, Lay-out do Arquivo-Retorno:
// Registro de Transação Tipo 1. Record type 3 (rateio de crédito) carries
// no occurrence.
var bradesco400 = register(&layout{
	bank: "237", bankName: "Bradesco", width: cnab.CNAB400,
	document: "Bradesco – Manual de Procedimentos Operacionais, Cobrança CNAB 400, Nº 4008.524.0121 versão 11 (Arquivo-Retorno)",
	details: map[byte]*record{'1': {name: "detail", fields: []field{
		fd(38, 62, "Nº Controle do Participante", kindText, toControl),
		fd(71, 81, "Identificação do Título no Banco: Nosso Número", kindDigits, toOurNumber),
		fd(82, 82, "Identificação do Título no Banco: dígito", kindText, toOurDigit),
		fd(108, 108, "Carteira", kindText, toWallet),
		fd(109, 110, "Identificação de Ocorrência", kindCode, toCode),
		fd(111, 116, "Data Ocorrência no Banco", kindDate6, toDate),
		fd(117, 126, "Número do Documento", kindText, toDocument),
		fd(147, 152, "Data Vencimento do Título", kindDate6, toDue),
		fd(153, 165, "Valor do Título", kindMoney, toAmount),
		fd(176, 188, "Despesas de Cobrança", kindMoney, toTariff),
		fd(189, 201, "Outras Despesas / Custas de Protesto", kindMoney, toOtherExpenses),
		fd(215, 227, "IOF Devido", kindMoney, toIOF),
		fd(228, 240, "Abatimento Concedido sobre o Título", kindMoney, toAbatement),
		fd(241, 253, "Desconto Concedido", kindMoney, toDiscount),
		fd(254, 266, "Valor Pago", kindMoney, toPaid),
		fd(267, 279, "Juros de Mora", kindMoney, toInterest),
		fd(280, 292, "Outros Créditos", kindMoney, toOtherCredits),
		fd(296, 301, "Data do Crédito", kindDate6, toCreditDate),
		fd(302, 304, "Origem Pagamento", kindText, toChannel),
		fd(319, 328, "Motivos das Rejeições para os Códigos de Ocorrência", kindReasons, toReasons),
	}}},
	skip:     "3",
	amounts:  creditedFromPaid,
	channels: bradescoChannels,
	codes: occTable{
		"02": {EntryConfirmed, "Entrada Confirmada", bradescoReasons["02"]},
		"03": {Rejected, "Entrada Rejeitada", bradescoReasons["03"]},
		"06": {Paid, "Liquidação normal", bradescoReasons["06"]},
		"09": {WrittenOff, "Baixado Automat. via Arquivo", bradescoReasons["09"]},
		"10": {WrittenOff, "Baixado conforme instruções da Agência", bradescoReasons["10"]},
		"11": {Other, "Em Ser - Arquivo de Títulos pendentes", nil},
		"12": {InstructionConfirmed, "Abatimento Concedido", nil},
		"13": {InstructionConfirmed, "Abatimento Cancelado", nil},
		"14": {InstructionConfirmed, "Vencimento Alterado", nil},
		"15": {Paid, "Liquidação em Cartório", bradescoReasons["15"]},
		"16": {Other, "Título Pago em Cheque – Vinculado", nil},
		"17": {Paid, "Liquidação após baixa ou Título não registrado", bradescoReasons["17"]},
		"18": {InstructionConfirmed, "Acerto de Depositária", nil},
		"19": {Protest, "Confirmação Receb. Inst. de Protesto", nil},
		"20": {Protest, "Confirmação Recebimento Instrução Sustação de Protesto", nil},
		"21": {InstructionConfirmed, "Acerto do Controle do Participante", nil},
		"22": {Other, "Título Com Pagamento Cancelado", nil},
		"23": {Protest, "Entrada do Título em Cartório", nil},
		"24": {Rejected, "Entrada rejeitada por CEP Irregular", bradescoReasons["24"]},
		"25": {Protest, "Confirmação Receb.Inst.de Protesto Falimentar", nil},
		"27": {Rejected, "Baixa Rejeitada", bradescoReasons["27"]},
		"28": {Fee, "Débito de tarifas/custas", bradescoReasons["28"]},
		"29": {Other, "Ocorrências do Pagador", bradescoReasons["29"]},
		"30": {Rejected, "Alteração de Outros Dados Rejeitados", bradescoReasons["30"]},
		"32": {Rejected, "Instrução Rejeitada", bradescoReasons["32"]},
		"33": {InstructionConfirmed, "Confirmação Pedido Alteração Outros Dados", nil},
		"34": {Protest, "Retirado de Cartório e Manutenção Carteira", nil},
		"35": {Other, "Desagendamento do débito automático", bradescoReasons["35"]},
		"40": {Other, "Estorno de pagamento", nil},
		"55": {Protest, "Sustado judicial", nil},
		"68": {InstructionConfirmed, "Acerto dos dados do rateio de Crédito", nil},
		"69": {InstructionConfirmed, "Cancelamento dos dados do rateio", nil},
		"73": {InstructionConfirmed, "Confirmação Receb. Pedido de Negativação", nil},
		"74": {InstructionConfirmed, "Confir Pedido de Excl de Negat (com ou sem baixa)", nil},
	},
})

// Banco do Brasil (001): "CNAB400/CBR643 – Layout de Arquivo Retorno para
// convênios na faixa numérica entre 1.000.000 a 9.999.999", Versão
// Jan/2014: detail record type 7, the 17-digit nosso número without a
// check digit, one reason (natureza do recebimento) in 87-88. Record
// types 2, 3 and 5 are auxiliary.
var bb400 = register(&layout{
	bank: "001", bankName: "Banco do Brasil", width: cnab.CNAB400,
	document: "Banco do Brasil – CNAB400/CBR643, Layout de Arquivo Retorno (convênios de 7 posições), Versão Jan/2014",
	details: map[byte]*record{'7': {name: "detail", fields: []field{
		fd(39, 63, "Número de Controle do Participante", kindText, toControl),
		fd(64, 80, "Nosso-Número", kindDigits, toOurNumber),
		fd(87, 88, "Natureza do recebimento", kindReasons, toReasons),
		fd(107, 108, "Carteira", kindText, toWallet),
		fd(109, 110, "Comando", kindCode, toCode),
		fd(111, 116, "Data de liquidação", kindDate6, toDate),
		fd(117, 126, "Número do título dado pelo cedente", kindText, toDocument),
		fd(147, 152, "Data de vencimento", kindDate6, toDue),
		fd(153, 165, "Valor do título", kindMoney, toAmount),
		fd(176, 181, "Data do crédito", kindDate6, toCreditDate),
		fd(182, 188, "Valor da tarifa", kindMoney, toTariff),
		fd(189, 201, "Outras despesas", kindMoney, toOtherExpenses),
		fd(215, 227, "IOF do desconto", kindMoney, toIOF),
		fd(228, 240, "Valor do abatimento", kindMoney, toAbatement),
		fd(241, 253, "Desconto concedido", kindMoney, toDiscount),
		fd(254, 266, "Valor recebido", kindMoney, toPaid),
		fd(267, 279, "Juros de mora", kindMoney, toInterest),
		fd(280, 292, "Outros recebimentos", kindMoney, toOtherCredits),
		fd(306, 318, "Valor do lançamento", kindMoney, toCredited),
		fd(393, 394, "Canal de pagamento do título utilizado pelo sacado", kindText, toChannel),
	}}},
	channels: bbChannels,
	skip:     "235",
	sequence: [2]int{101, 107},
	codes:    bbCodes,
})
