package retorno

// The FEBRABAN CNAB 240 collection return ("Layout Padrão FEBRABAN 240
// posições", cobrança, segments T and U) that most banks follow: the
// fields every bank shares, the movement codes of note C044 and the reason
// codes of note C047, as the banks' documents reprint them (the text here
// is Bradesco's reprint, "Layout de Arquivo Multi-Banco CNAB 240"). A
// bank's file assembles its segment T from these and its own fields
// where its document departs from the standard.

// code240 is the movement code of every segment.
func code240() field {
	return fd(16, 17, "Código de Movimento Retorno", kindCode, toCode)
}

// accountT240 is the beneficiary's account in segment T (18-36).
func accountT240() []field {
	return []field{
		fd(18, 22, "Agência Mantenedora da Conta", kindText, toAgency),
		fd(23, 23, "Dígito Verificador da Agência", kindText, toAgencyDigit),
		fd(24, 35, "Número da Conta Corrente", kindText, toAccount),
		fd(36, 36, "Dígito Verificador da Conta", kindText, toAccountDigit),
	}
}

// headerAccount240 is the beneficiary's covenant and account in the file
// header (33-71).
var headerAccount240 = &record{name: "file header", fields: []field{
	fd(33, 52, "Código do Convênio no Banco", kindText, toBeneficiaryCode),
	fd(53, 57, "Agência Mantenedora da Conta", kindText, toAgency),
	fd(58, 58, "Dígito Verificador da Agência", kindText, toAgencyDigit),
	fd(59, 70, "Número da Conta Corrente", kindText, toAccount),
	fd(71, 71, "Dígito Verificador da Conta", kindText, toAccountDigit),
}}

// tTail240 is segment T from the wallet (58) to the reasons (214-223),
// with the document number ending at docEnd (73 in the standard).
func tTail240(docEnd int) []field {
	return []field{
		fd(58, 58, "Código da Carteira", kindText, toWallet),
		fd(59, docEnd, "Número do Documento de Cobrança", kindText, toDocument),
		fd(74, 81, "Data do Vencimento do Título", kindDate8, toDue),
		fd(82, 96, "Valor Nominal do Título", kindMoney, toAmount),
		fd(97, 99, "Número do Banco Cobrador/Recebedor", kindText, toCollectingBank),
		fd(100, 104, "Agência Cobradora/Recebedora", kindText, toCollectingAgency),
		fd(105, 105, "Dígito Verificador da Agência", kindText, toCollectingAgencyDigit),
		fd(106, 130, "Identificação do Título na Empresa", kindText, toControl),
		fd(131, 132, "Código da Moeda", kindText, toCurrency),
		fd(133, 133, "Tipo de Inscrição do Pagador", kindDocType, toPayerDocumentType),
		fd(134, 148, "Número de Inscrição do Pagador", kindText, toPayerDocument),
		fd(149, 188, "Nome do Pagador", kindText, toPayer),
		fd(199, 213, "Valor da Tarifa / Custas", kindMoney, toTariff),
		fd(214, 223, "Motivo da Ocorrência", kindReasons, toReasons),
	}
}

// segU240 is segment U as FEBRABAN lays it out.
var segU240 = record{name: "segment U", fields: []field{
	code240(),
	fd(18, 32, "Juros / Multa / Encargos", kindMoney, toInterest),
	fd(33, 47, "Valor do Desconto Concedido", kindMoney, toDiscount),
	fd(48, 62, "Valor do Abat. Concedido/Cancel.", kindMoney, toAbatement),
	fd(63, 77, "Valor do IOF Recolhido", kindMoney, toIOF),
	fd(78, 92, "Valor Pago pelo Pagador", kindMoney, toPaid),
	fd(93, 107, "Valor Líquido a ser Creditado", kindMoney, toCredited),
	fd(108, 122, "Valor de Outras Despesas", kindMoney, toOtherExpenses),
	fd(123, 137, "Valor de Outros Créditos", kindMoney, toOtherCredits),
	fd(138, 145, "Data da Ocorrência", kindDate8, toDate),
	fd(146, 153, "Data da Efetivação do Crédito", kindDate8, toCreditDate),
}}

// febrabanCodes is C044, the movement codes of the return, with the
// reason table each one's reasons come from.
var febrabanCodes = occTable{
	"02": {EntryConfirmed, "Entrada Confirmada", febrabanRejections},
	"03": {Rejected, "Entrada Rejeitada", febrabanRejections},
	"04": {Other, "Transferência de Carteira/Entrada", nil},
	"05": {WrittenOff, "Transferência de Carteira/Baixa", nil},
	"06": {Paid, "Liquidação", febrabanSettlements},
	"07": {InstructionConfirmed, "Confirmação do Recebimento da Instrução de Desconto", nil},
	"08": {InstructionConfirmed, "Confirmação do Recebimento do Cancelamento do Desconto", nil},
	"09": {WrittenOff, "Baixa", febrabanSettlements},
	"11": {Other, "Títulos em Carteira (Em Ser)", nil},
	"12": {InstructionConfirmed, "Confirmação Recebimento Instrução de Abatimento", nil},
	"13": {InstructionConfirmed, "Confirmação Recebimento Instrução de Cancelamento Abatimento", nil},
	"14": {InstructionConfirmed, "Confirmação Recebimento Instrução Alteração de Vencimento", nil},
	"15": {Other, "Franco de Pagamento", nil},
	"17": {Paid, "Liquidação Após Baixa ou Liquidação Título Não Registrado", febrabanSettlements},
	"19": {Protest, "Confirmação Recebimento Instrução de Protesto", nil},
	"20": {Protest, "Confirmação Recebimento Instrução de Sustação de Protesto", nil},
	"23": {Protest, "Remessa a Cartório (Aponte em Cartório)", nil},
	"24": {Protest, "Retirada de Cartório e Manutenção em Carteira", nil},
	"25": {WrittenOff, "Protestado e Baixado (Baixa por Ter Sido Protestado)", nil},
	"26": {Rejected, "Instrução Rejeitada", febrabanRejections},
	"27": {InstructionConfirmed, "Confirmação do Pedido de Alteração de Outros Dados", nil},
	"28": {Fee, "Débito de Tarifas/Custas", febrabanFees},
	"29": {Other, "Ocorrências do Pagador", nil},
	"30": {Rejected, "Alteração de Dados Rejeitada", febrabanRejections},
	"33": {InstructionConfirmed, "Confirmação da Alteração dos Dados do Rateio de Crédito", nil},
	"34": {InstructionConfirmed, "Confirmação do Cancelamento dos Dados do Rateio de Crédito", nil},
	"35": {InstructionConfirmed, "Confirmação do Desagendamento do Débito Automático", nil},
	"36": {Other, "Confirmação de envio de e-mail/SMS", nil},
	"37": {Other, "Envio de e-mail/SMS rejeitado", nil},
	"38": {InstructionConfirmed, "Confirmação de alteração do Prazo Limite de Recebimento", nil},
	"39": {InstructionConfirmed, "Confirmação de Dispensa de Prazo Limite de Recebimento", nil},
	"40": {InstructionConfirmed, "Confirmação da alteração do número do título dado pelo beneficiário", nil},
	"41": {InstructionConfirmed, "Confirmação da alteração do número controle do Participante", nil},
	"42": {InstructionConfirmed, "Confirmação da alteração dos dados do Pagador", nil},
	"43": {InstructionConfirmed, "Confirmação da alteração dos dados do Sacador/Avalista", nil},
	"44": {Other, "Título pago com cheque devolvido", nil},
	"45": {Paid, "Título pago com cheque compensado", nil},
	"46": {Protest, "Instrução para cancelar protesto confirmada", nil},
	"47": {Protest, "Instrução para protesto para fins falimentares confirmada", nil},
	"48": {InstructionConfirmed, "Confirmação de instrução de transferência de carteira/modalidade de cobrança", nil},
	"49": {InstructionConfirmed, "Alteração de contrato de cobrança", nil},
	"50": {Other, "Título pago com cheque pendente de liquidação", nil},
	"51": {Other, "Título DDA reconhecido pelo pagador", nil},
	"52": {Other, "Título DDA não reconhecido pelo pagador", nil},
	"53": {Other, "Título DDA recusado pela CIP", nil},
	"54": {InstructionConfirmed, "Confirmação da Instrução de Baixa de Título Negativado sem Protesto", nil},
	"73": {InstructionConfirmed, "Confirmação recebimento pedido de negativação", nil},
}

// withCodes returns base with a bank's own codes added or replaced.
func withCodes(base, own occTable) occTable {
	out := make(occTable, len(base)+len(own))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range own {
		out[k] = v
	}
	return out
}

// febrabanRejections is C047-A: why an entry, instruction or change was rejected (movements 02, 03, 26, 30).
var febrabanRejections = reasonTable{
	"01": "Código do Banco Inválido",
	"02": "Código do Registro Detalhe Inválido",
	"03": "Código do Segmento Inválido",
	"04": "Código de Movimento Não Permitido para Carteira",
	"05": "Código de Movimento Inválido",
	"06": "Tipo/Número de Inscrição do Beneficiário Inválidos",
	"07": "Agência/Conta/DV Inválido",
	"08": "Nosso Número Inválido",
	"09": "Nosso Número Duplicado",
	"10": "Carteira Inválida",
	"11": "Forma de Cadastramento do Título Inválido",
	"12": "Tipo de Documento Inválido",
	"13": "Identificação da Emissão do Bloqueto Inválida",
	"14": "Identificação da Distribuição do Bloqueto Inválida",
	"15": "Características da Cobrança Incompatíveis",
	"16": "Data de Vencimento Inválida",
	"17": "Data de Vencimento Anterior a Data de Emissão",
	"18": "Vencimento fora do prazo da operação da Operação (indicador registro de títulos vencidos há mais de 59 dias)",
	"19": "Título a cargo de Bancos Correspondentes com vencimento inferior a XX dias",
	"20": "Valor do Título Inválido",
	"21": "Espécie do Título Inválida",
	"22": "Espécie do Título Não permitida para a carteira",
	"23": "Aceite Inválido",
	"24": "Data da Emissão Inválida",
	"25": "Data da Emissão posterior da data de entrada",
	"26": "Código de Juros de Mora Inválido",
	"27": "Valor/taxa de Juros de Mora Inválido",
	"28": "Código do Desconto Inválido",
	"29": "Valor do Desconto Maior ou Igual ao Valor do título",
	"30": "Desconto a conceder não confere",
	"31": "Concessão de Desconto - Já Existe Desconto Anterior",
	"32": "Valor do IOF Inválido",
	"33": "Valor do Abatimento Inválido",
	"34": "Valor do Abatimento Maior ou Igual ao Valor do Título",
	"35": "Valor a Conceder Não Confere",
	"36": "Concessão de Abatimento - Já Existe Abatimento Anterior",
	"37": "Código para Protesto Inválido",
	"38": "Prazo para Protesto/Negativação Inválido",
	"39": "Pedido de Protesto/ Negativação Não Permitido para o Título",
	"40": "Título com Ordem/pedido de Protesto/Negativação Emitido",
	"41": "Pedido de Sustação/Excl p/ Título s/ Instr de Protesto/Negativação",
	"42": "Código para Baixa/Devolução Inválido",
	"43": "Prazo para Baixa/Devolução Inválido",
	"44": "Código da Moeda Inválido",
	"45": "Nome do Pagador Não Informado",
	"46": "Tipo/Número de Inscrição do Pagador Inválidos",
	"47": "Endereço do Pagador Não Informado",
	"48": "CEP Inválido",
	"49": "CEP Sem Praça de Cobrança (Não Localizado)",
	"50": "CEP Referente a um Banco Correspondente",
	"51": "CEP incompatível com a Unidade da Federação",
	"52": "Unidade da Federação Inválida",
	"53": "Tipo/Número de Inscrição do Pagador/Avalista Inválidos",
	"54": "Pagador/Avalista Não Informado",
	"55": "Nosso número no Banco Correspondente Não Informado",
	"56": "Código do Banco Correspondente Não Informado",
	"57": "Código da Multa Inválido",
	"58": "Data da Multa Inválida",
	"59": "Valor/Percentual da Multa Inválido",
	"60": "Movimento para Título Não Cadastrado",
	"61": "Alteração da Agência Cobradora/DV Inválida",
	"62": "Tipo de Impressão Inválido",
	"63": "Entrada para Título já Cadastrado",
	"64": "Número da Linha Inválido",
	"65": "Código do Banco para Débito Inválido",
	"66": "Agência/Conta/DV para Débito Inválido",
	"67": "Dados para Débito incompatível com a Identificação da Emissão do Bloqueto",
	"68": "Débito Automático Agendado",
	"69": "Débito Não Agendado - Erro nos Dados da Remessa",
	"70": "Débito Não Agendado - Pagador Não Consta do Cadastro de Autorizante",
	"71": "Débito Não Agendado - Beneficiário Não Autorizado pelo Pagador",
	"72": "Débito Não Agendado - Beneficiário Não Participa da Modalidade Débito Automático",
	"73": "Débito Não Agendado - Código de Moeda Diferente de Real (R$)",
	"74": "Débito Não Agendado - Data Vencimento Inválida",
	"75": "Débito Não Agendado, Conforme seu Pedido, Título Não Registrado",
	"76": "Débito Não Agendado, Tipo/Num. Inscrição do Debitado, Inválido",
	"77": "Transferência para Desconto Não Permitida para a Carteira do Título",
	"78": "Data Inferior ou Igual ao Vencimento para Débito Automático",
	"79": "Data Juros de Mora Inválido",
	"80": "Data do Desconto Inválida",
	"81": "Tentativas de Débito Esgotadas - Baixado",
	"82": "Tentativas de Débito Esgotadas - Pendente",
	"83": "Limite Excedido",
	"84": "Número Autorização Inexistente",
	"85": "Título com Pagamento Vinculado",
	"86": "Seu Número Inválido",
	"87": "e-mail/SMS enviado",
	"88": "e-mail Lido",
	"89": "e-mail/SMS devolvido - endereço de e-mail ou número do celular incorreto",
	"90": "e-mail devolvido - caixa postal cheia",
	"91": "e-mail/número do celular do pagador não informado",
	"92": "Pagador optante por Bloqueto Eletrônico - e-mail não enviado",
	"93": "Código para emissão de bloqueto não permite envio de e-mail",
	"94": "Código da Carteira inválido para envio e-mail",
	"95": "Contrato não permite o envio de e-mail",
	"96": "Número de contrato inválido",
	"97": "Rejeição da alteração do prazo limite de recebimento",
	"98": "Rejeição de dispensa de prazo limite de recebimento",
	"99": "Rejeição da alteração do número do título dado pelo beneficiário",
	"A1": "Rejeição da alteração do número controle do participante",
	"A2": "Rejeição da alteração dos dados do pagador",
	"A3": "Rejeição da alteração dos dados do pagadorr/avalista",
	"A4": "Pagador DDA",
}

// febrabanFees is C047-B: the fee or cost charged (movement 28).
var febrabanFees = reasonTable{
	"01": "Tarifa de Extrato de Posição",
	"02": "Tarifa de Manutenção de Título Vencido",
	"03": "Tarifa de Sustação/Excl Negativação",
	"04": "Tarifa de Protesto/ Incl Negativação",
	"05": "Tarifa de Outras Instruções",
	"06": "Tarifa de Outras Ocorrências",
	"07": "Tarifa de Envio de Duplicata ao Pagador",
	"08": "Custas de Protesto",
	"09": "Custas de Sustação de Protesto",
	"10": "Custas de Cartório Distribuidor",
	"11": "Custas de Edital",
	"12": "Tarifa Sobre Devolução de Título Vencido",
	"13": "Tarifa Sobre Registro Cobrada na Baixa/Liquidação",
	"14": "Tarifa Sobre Reapresentação Automática",
	"15": "Tarifa Sobre Rateio de Crédito",
	"16": "Tarifa Sobre Informações Via Fax",
	"17": "Tarifa Sobre Prorrogação de Vencimento",
	"18": "Tarifa Sobre Alteração de Abatimento/Desconto",
	"19": "Tarifa Sobre Arquivo mensal (Em Ser)",
	"20": "Tarifa Sobre Emissão de Bloqueto Pré-Emitido pelo Banco",
}

// febrabanSettlements is C047-C: how a title was paid or written off (movements 06, 09, 17).
var febrabanSettlements = reasonTable{
	"01": "Por Saldo",
	"02": "Por Conta",
	"03": "Liquidação no Guichê de Caixa em Dinheiro",
	"04": "Compensação Eletrônica",
	"05": "Compensação Convencional",
	"06": "Por Meio Eletrônico",
	"07": "Após Feriado Local",
	"08": "Em Cartório",
	"30": "Liquidação no Guichê de Caixa em Cheque",
	"31": "Liquidação em banco correspondente",
	"32": "Liquidação Terminal de Auto-Atendimento",
	"33": "Liquidação na Internet (Home banking)",
	"34": "Liquidado Office Banking",
	"35": "Liquidado Correspondente em Dinheiro",
	"36": "Liquidado Correspondente em Cheque",
	"37": "Liquidado por meio de Central de Atendimento (Telefone)",
	"09": "Comandada Banco",
	"10": "Comandada Cliente Arquivo",
	"11": "Comandada Cliente On-line",
	"12": "Decurso Prazo - Cliente",
	"13": "Decurso Prazo - Banco",
	"14": "Protestado",
	"15": "Título Excluído",
	"18": "Pagamento parcial",
}
