package api

import (
	"encoding/json"
	"net/http"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/storage"
)

// The company's finance settings (docs/api.md, "/financial/settings"): read
// and changed by the company's own keys. They are the readjustment options,
// the items a termination's final invoice books its fine and the
// deposit's deduction as, the item a write-off books its loss with, the
// billing reminders', the days an agreement's installment may stay
// overdue, and how the owners' transfers are paid; they live on the
// company's row.

// maxSettingsBodyBytes bounds a PUT /financial/settings body.
const maxSettingsBodyBytes = 64 << 10

// getSettings is GET /financial/settings; it takes no query parameters.
func (s *Server) getSettings(w http.ResponseWriter, r *http.Request) {
	if err := noQuery(r.URL.RawQuery); err != nil {
		writeError(w, r, err)
		return
	}
	settings, err := storage.SettingsOf(r.Context(), s.store.Pool(), principalOf(r.Context()).CompanyID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, dataEnvelope{Return: true, Status: http.StatusOK, Data: settings})
}

// putSettings is PUT /financial/settings: the fields given are changed,
// the others kept; any problem is a 422 naming its field, and nothing is
// stored. The answer is the settings as stored.
func (s *Server) putSettings(w http.ResponseWriter, r *http.Request) {
	if err := checkContentType(r.Header.Get("Content-Type")); err != nil {
		writeError(w, r, err)
		return
	}
	body, err := readBody(w, r, maxSettingsBodyBytes)
	if err != nil {
		writeError(w, r, err)
		return
	}
	change, err := parseSettingsBody(body)
	if err != nil {
		writeError(w, r, err)
		return
	}
	p := principalOf(r.Context())
	settings, err := s.store.UpdateSettings(r.Context(), storage.Scope{CompanyID: p.CompanyID, UserID: p.UserID}, change)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, dataEnvelope{Return: true, Status: http.StatusOK, Message: "Settings stored.", Data: settings})
}

// parseSettingsBody reads {"readjust_allow_reduction": bool,
// "readjust_candidates": [index, ...], "termination_fee_item_id": id or
// null, "termination_deposit_item_id": id or null, "write_off_item_id": id
// or null, "reminders_enabled": bool, "reminders_days": [day, ...],
// "reminders_reply_to": address or null, "reminders_sender_name": name or
// null, "agreement_break_days": days,
// "transfer_payment": "at_once" or "batch"},
// any of them, naming every problem.
func parseSettingsBody(body []byte) (storage.SettingsChange, error) {
	var change storage.SettingsChange
	obj, problems, err := decodeObject(body)
	if err != nil {
		return change, err
	}
	fail := func(field, message string) {
		problems = append(problems, finance.Problem{Field: field, Message: message})
	}
	for _, key := range sortedKeys(obj) {
		raw := obj[key]
		switch key {
		case "readjust_allow_reduction":
			var allow *bool
			if json.Unmarshal(raw, &allow) != nil || allow == nil {
				fail(key, "must be a boolean")
				continue
			}
			change.Readjust.AllowReduction = allow
		case "readjust_candidates":
			var candidates []string
			if json.Unmarshal(raw, &candidates) != nil || candidates == nil {
				fail(key, "must be an array of index names")
				continue
			}
			problems = append(problems, storage.CheckReadjustCandidates(candidates)...)
			change.Readjust.Candidates = candidates
		case "termination_fee_item_id", "termination_deposit_item_id", "write_off_item_id":
			var id *int64
			if json.Unmarshal(raw, &id) != nil || id != nil && *id <= 0 {
				if key == "write_off_item_id" {
					fail(key, "must be a transaction item's id, or null to book no loss on a write-off")
				} else {
					fail(key, "must be a transaction item's id, or null")
				}
				continue
			}
			set := storage.ItemSetting{Set: true}
			if id != nil {
				set.ID = *id
			}
			switch key {
			case "termination_fee_item_id":
				change.FeeItem = set
			case "termination_deposit_item_id":
				change.DepositItem = set
			default:
				change.WriteOffItem = set
			}
		case "reminders_enabled":
			var on *bool
			if json.Unmarshal(raw, &on) != nil || on == nil {
				fail(key, "must be a boolean")
				continue
			}
			change.Reminders.Enabled = on
		case "reminders_days":
			var days []int
			if json.Unmarshal(raw, &days) != nil || days == nil {
				fail(key, "must be an array of whole numbers of days from the due date (-5: five days before)")
				continue
			}
			problems = append(problems, storage.CheckReminderDays(days)...)
			change.Reminders.Days = days
		case "reminders_reply_to":
			var addr *string
			if json.Unmarshal(raw, &addr) != nil {
				fail(key, "must be an e-mail address, or null")
				continue
			}
			if addr != nil {
				problems = append(problems, storage.CheckReplyTo(*addr)...)
			}
			change.Reminders.SetReplyTo, change.Reminders.ReplyTo = true, addr
		case "reminders_sender_name":
			var name *string
			if json.Unmarshal(raw, &name) != nil {
				fail(key, "must be a name (a string of one line), or null for the company's name")
				continue
			}
			if name != nil {
				problems = append(problems, storage.CheckSenderName(*name)...)
			}
			change.Reminders.SetSenderName, change.Reminders.SenderName = true, name
		case "agreement_break_days":
			var days *int
			if json.Unmarshal(raw, &days) != nil || days == nil {
				fail(key, "must be an integer")
				continue
			}
			problems = append(problems, storage.CheckAgreementBreakDays(*days)...)
			change.AgreementBreakDays = days
		case "transfer_payment":
			var v *string
			if json.Unmarshal(raw, &v) != nil || v == nil {
				fail(key, "must be at_once or batch")
				continue
			}
			problems = append(problems, storage.CheckTransferPayment(*v)...)
			change.TransferPayment = v
		default:
			fail(key, "unknown field")
		}
	}
	if len(problems) > 0 {
		return change, finance.InvalidInput(problems)
	}
	return change, nil
}

// settingsOp describes GET (put false) and PUT /financial/settings.
func settingsOp(put bool) operation {
	settings, err := reflector.SchemaFor(storage.Settings{})
	if err != nil {
		panic("api: " + err.Error())
	}
	if !put {
		return operation{tag: "financial/settings", summary: "The company's finance settings",
			description: "The finance settings of the caller's company (docs/api.md, \"/financial/settings\"): " +
				"the readjustment's `readjust_allow_reduction` and `readjust_candidates`, the termination's " +
				"`termination_fee_item_id` and `termination_deposit_item_id`, and `write_off_item_id`, the " +
				"transaction item a write-off books its loss with (null: not booked), the billing reminders' " +
				"`reminders_enabled` (default false), `reminders_days` (days from the due date, default [-5, 0, 3, 10]) and " +
				"`reminders_reply_to` (null: none) and `reminders_sender_name` (the name the reminders are sent by and " +
				"signed with; null: the company's name), and `agreement_break_days`, the days an agreement's installment may " +
				"stay overdue before the nightly run breaks it, and `transfer_payment`, how the owners' transfers are paid: " +
				"`at_once` (default: the nightly run writes them paid) or `batch` (written unpaid, paid by a payment " +
				"batch's return file or marked paid by hand). It takes no query parameters (422).",
			responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The settings.", envelope(settings, false))},
				http.StatusUnprocessableEntity)}
	}
	answer := answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The settings as stored.", envelope(settings, true))},
		http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity)
	return operation{tag: "financial/settings", summary: "Change the company's finance settings",
		description: "The fields given are changed, the others kept; any problem is a 422 naming its field and nothing " +
			"is stored.",
		body: jsonBody("The settings to change.", true, openapi.Object(map[string]*openapi.Schema{
			"readjust_allow_reduction": {Type: "boolean"},
			"readjust_candidates":      openapi.Array(openapi.String()),
			"termination_fee_item_id": openapi.Nullable(&openapi.Schema{Type: "integer", Minimum: "1",
				Description: "The item a termination's fine is booked as; null: the contract's late-fee item, else the company's fee item."}),
			"termination_deposit_item_id": openapi.Nullable(&openapi.Schema{Type: "integer", Minimum: "1",
				Description: "The item the deposit's deduction is booked as (a negative line); null: none, and a termination " +
					"that would deduct a deposit is a 422 naming it."}),
			"write_off_item_id": openapi.Nullable(&openapi.Schema{Type: "integer", Minimum: "1",
				Description: "A transaction item of the company debiting business; null: a write-off books no loss."}),
			"reminders_enabled": {Type: "boolean", Description: "Send the company's billing reminders (invoices:remind)."},
			"reminders_days": {Type: "array", Items: &openapi.Schema{Type: "integer", Minimum: "-60", Maximum: "180"},
				MinItems: new(1), MaxItems: new(10),
				Description: "The rules: days from the due date (-5: five days before; 0: on the day; 3: three days after), distinct."},
			"reminders_reply_to": openapi.Nullable(&openapi.Schema{Type: "string", Format: "email",
				Description: "Where the payers' replies go; null: none."}),
			"reminders_sender_name": openapi.Nullable(&openapi.Schema{Type: "string", MinLength: new(1), MaxLength: new(storage.MaxSenderName),
				Pattern: `^[^\x00-\x1f\x7f-\x9f]*$`,
				Description: "The name the reminders are sent by (the From header's display name) and signed with: one line " +
					"of 1 to 100 characters, no line break or control character; null: the company's name."}),
			"agreement_break_days": openapi.Integer().WithDescription("Days an agreement's installment may stay overdue " +
				"before the nightly run breaks the agreement, 1 to 366 (default 30)."),
			"transfer_payment": openapi.Enum("at_once", "batch").WithDescription("How the owners' transfers " +
				"are paid: at_once, the nightly run writes them paid on its day; batch, it writes them unpaid, and a payment " +
				"batch's return file (or a payment marked by hand) pays them on the day the money left."),
		})),
		responses: answer}
}
