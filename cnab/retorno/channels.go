package retorno

import "strings"

// The liquidation channels (how a title was paid) of the layouts that
// give one in a field of their own, with the text of each bank's
// document. The CNAB 240 layouts that follow FEBRABAN give the channel as
// the reason of the paid occurrence (C047-C); see layout.channelFromReasons.

// itauChannels400 is note 28 of Itaú's CNAB 400 manual (Julho/2021),
// "código de liquidação", positions 393-394.
var itauChannels400 = reasonTable{
	"AA": "CAIXA ELETRÔNICO BANCO ITAÚ",
	"AC": "PAGAMENTO EM CARTÓRIO AUTOMATIZADO",
	"BC": "BANCOS CORRESPONDENTES",
	"BF": "ITAÚ BANKFONE",
	"BL": "ITAÚ 30 HORAS",
	"B0": "OUTROS BANCOS – RECEBIMENTO OFF-LINE",
	"B1": "OUTROS BANCOS – PELO CÓDIGO DE BARRAS",
	"B2": "OUTROS BANCOS – PELA LINHA DIGITÁVEL",
	"B3": "OUTROS BANCOS – PELO AUTO ATENDIMENTO",
	"B4": "OUTROS BANCOS – RECEBIMENTO EM CASA LOTÉRICA",
	"B5": "OUTROS BANCOS – CORRESPONDENTE",
	"B6": "OUTROS BANCOS – TELEFONE",
	"B7": "OUTROS BANCOS – ARQUIVO ELETRÔNICO (Pagamento Efetuado por meio de troca de arquivos)",
	"B8": "PAGAMENTO DE BOLETO ACIMA DE R$ 250.000,00 (Pagamento efetuado no Itaú ou em Outros Bancos)",
	"CC": "AGÊNCIA ITAÚ – COM CHEQUE DE OUTRO BANCO",
	"CK": "SISPAG – SISTEMA DE CONTAS A PAGAR ITAÚ",
	"CP": "AGÊNCIA ITAÚ – POR DÉBITO EM CONTA CORRENTE, CHEQUE ITAÚ OU DINHEIRO",
	"DG": "AGÊNCIA ITAÚ – CAPTURADO EM OFF-LINE",
	"LC": "PAGAMENTO EM CARTÓRIO DE PROTESTO COM CHEQUE",
	"Q0": "AGENDAMENTO – PAGAMENTO AGENDADO VIA 30 HORAS OU OUTRO CANAL ELETRÔNICO E LIQUIDADO NA DATA INDICADA",
}

// itauChannels240 is note 29 of Itaú's CNAB 240 document (Janeiro 2017),
// positions 222-223 of segment T.
var itauChannels240 = reasonTable{
	"AA": "CAIXA ELETRÔNICO ITAÚ",
	"AC": "PAGAMENTO EM CARTÓRIO AUTOMATIZADO",
	"AO": "ACERTO ONLINE",
	"BC": "BANCOS CORRESPONDENTES",
	"BF": "ITAÚ BANKFONE",
	"BL": "ITAÚ BANKLINE",
	"B0": "OUTROS BANCOS – RECEBIMENTO OFF-LINE",
	"B1": "OUTROS BANCOS – PELO CÓDIGO DE BARRAS",
	"B2": "OUTROS BANCOS – PELA LINHA DIGITÁVEL",
	"B3": "OUTROS BANCOS – PELO AUTO ATENDIMENTO",
	"B4": "OUTROS BANCOS – RECEBIMENTO EM CASA LOTÉRICA",
	"B5": "OUTROS BANCOS – CORRESPONDENTE",
	"B6": "OUTROS BANCOS – TELEFONE",
	"B7": "OUTROS BANCOS – ARQUIVO ELETRÔNICO (Pagamento Efetuado por meio de troca de arquivos)",
	"CC": "AGÊNCIA ITAÚ – COM CHEQUE DE OUTRO BANCO ou (CHEQUE ITAÚ)",
	"CI": "CORRESPONDENTE ITAÚ",
	"CK": "SISPAG – SISTEMA DE CONTAS A PAGAR ITAÚ",
	"CP": "AGÊNCIA ITAÚ – POR DÉBITO EM CONTA CORRENTE, CHEQUE ITAÚ OU DINHEIRO",
	"DG": "AGÊNCIA ITAÚ – CAPTURADO EM OFF-LINE",
	"LC": "PAGAMENTO EM CARTÓRIO DE PROTESTO COM CHEQUE",
	"EA": "TERMINAL DE CAIXA",
	"Q0": "AGENDAMENTO – PAGAMENTO AGENDADO VIA BANKLINE OU OUTRO CANAL ELETRÔNICO E LIQUIDADO NA DATA INDICADA",
	"RA": "DIGITAÇÃO – REALIMENTAÇÃO AUTOMÁTICA",
	"ST": "PAGAMENTO VIA SELTEC",
}

// bradescoChannels is "302 a 304 – Origens Pagamento" of Bradesco's CNAB
// 400 manual (Obs. pág. 46), given for occurrences 06, 15 and 17.
var bradescoChannels = reasonTable{
	"01": "CICS (AT00)",
	"07": "TERM. GER. CBCA PF8",
	"10": "TER. GER. CBCA SENHAS",
	"74": "BOCA DO CAIXA",
	"75": "RETAGUARDA",
	"76": "SUBCENTRO",
	"02": "BDN MULTI SAQUE",
	"24": "TERM. MULTI FUNÇÃO",
	"27": "PAG CONTAS",
	"14": "INTERNET",
	"35": "NET EMPRESA",
	"52": "SHOP CREDIT",
	"73": "PAG FOR",
	"13": "FONE FÁCIL",
	"67": "DEB AUTOMÁTICO",
	"77": "CARTAO DE CRÉDITO",
	"78": "COMPENSAÇÃO ELETRÔNICA",
	"82": "BRADESCO EXPRESSO",
}

// bbChannels is note 15 of Banco do Brasil's CBR643 (Jan/2014), "canal
// utilizado para pagamento", positions 393-394, for the liquidation
// commands (06, 07, 08, 15, 46).
var bbChannels = reasonTable{
	"01": "terminal de auto-atendimento",
	"02": "internet",
	"03": "central de atendimento (URA)",
	"04": "gerenciador financeiro",
	"05": "central de atendimento",
	"06": "outro canal de auto-atendimento",
	"07": "correspondente bancário",
	"08": "guichê de caixa",
	"09": "arquivo-eletrônico",
	"10": "compensação",
	"11": "outro canal eletrônico",
}

// banrisulChannels is position 344 of Banrisul's CNAB 400 return,
// "canal de pagamento".
var banrisulChannels = reasonTable{
	"1": "Guichê de caixa (Terminal Financeiro)",
	"2": "Terminal de autoatendimento (Cash eletrônico)",
	"3": "Internet (Home/Office banking)",
	"5": "Correspondente",
	"6": "Telefone (Central de atendimento)",
	"7": "Arquivo eletrônico",
}

// describeChannel sets the meaning of a paid title's channel code, or
// takes the channel from the reason of its occurrence where the layout
// gives it there. A channel of another occurrence is dropped: the field
// means something else there, or nothing.
func (l *layout) describeChannel(ev *Event) {
	if ev.Occurrence != Paid {
		if ev.Channel != (Channel{}) {
			ev.Channel = Channel{}
		}
		return
	}
	if l.channelFromReasons {
		if len(ev.Reasons) > 0 {
			ev.Channel = Channel{Code: ev.Reasons[0].Code, Description: ev.Reasons[0].Description}
		}
		return
	}
	code := ev.Channel.Code
	if code == "" || strings.Trim(code, "0") == "" {
		ev.Channel = Channel{}
		return
	}
	text, ok := l.channels[code]
	if !ok && len(code) > 2 && code[0] == '0' {
		// A two-digit code in a three-position field (Bradesco's 302-304).
		code = strings.TrimLeft(code, "0")
		if len(code) < 2 {
			code = "0" + code
		}
		text = l.channels[code]
	}
	ev.Channel = Channel{Code: code, Description: text}
}
