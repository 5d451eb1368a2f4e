package api

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/propfin/propfin/api/openapi"
	"github.com/propfin/propfin/finance"
	"github.com/propfin/propfin/jobs/webhook"
	"github.com/propfin/propfin/storage"
)

// The webhooks (docs/api.md, "Webhooks"): the endpoints are a declared
// resource (list, get and delete are the generic handlers'), written by
// the handlers below, which hold the URL to the network policy and give
// the secret; the events and the deliveries are read-only resources
// (resourceRoutes); rotating a secret, a test ping and a resend are the
// operations here.

const webhooksPath = "/webhooks"

// webhookRoutes mounts the endpoints' routes on router.
func (s *Server) webhookRoutes(router *router) {
	reg := s.store.Registry()
	res := reg.MustResource(storage.Webhooks)
	h := resourceHandlers{store: s.store, reads: s.store, res: res, path: webhooksPath}
	doc := resourceDoc{reg: reg, res: res, path: webhooksPath}
	router.HandleFunc(http.MethodGet, webhooksPath, doc.list(), h.list)
	router.HandleFunc(http.MethodPost, webhooksPath, createWebhookOp(doc), s.createWebhook)
	router.HandleFunc(http.MethodGet, webhooksPath+"/:id", doc.get(), h.get)
	router.HandleFunc(http.MethodPut, webhooksPath+"/:id", updateWebhookOp(doc), s.updateWebhook)
	router.HandleFunc(http.MethodDelete, webhooksPath+"/:id", doc.delete(), h.delete)
	router.HandleFunc(http.MethodPost, webhooksPath+"/:id/rotateSecret", rotateSecretOp(), s.rotateSecret)
	router.HandleFunc(http.MethodPost, webhooksPath+"/:id/test", testWebhookOp(), s.testWebhook)
	router.HandleFunc(http.MethodPost, webhooksPath+"/:webhook/deliveries/:id/resend", resendOp(), s.resendDelivery)
}

// readWebhook reads an endpoint's create or update body: events may be
// "*" alone (every type), the URL is held to the network policy, and a
// secret given on create must be a Standard Webhooks secret.
func (s *Server) readWebhook(w http.ResponseWriter, r *http.Request, create bool) (storage.Write, bool) {
	res := s.store.Registry().MustResource(storage.Webhooks)
	obj, problems, err := readObject(w, r)
	if err != nil {
		writeError(w, r, err)
		return storage.Write{}, false
	}
	if raw, ok := obj["events"]; ok {
		var one string
		if json.Unmarshal(raw, &one) == nil && one == storage.AllEvents {
			obj["events"] = json.RawMessage(`["*"]`)
		}
	}
	write, err := parseWrite(s.store.Registry(), res, obj, create)
	var extra []finance.Problem
	if u, ok := write.Values["url"].(string); ok {
		if msg := s.webhooks.CheckURL(r.Context(), u); msg != "" {
			extra = append(extra, finance.Problem{Field: "url", Message: msg})
		}
	}
	if v, ok := write.Values["events"]; ok { // named beside the url's and the secret's (the write's hook says it too)
		if msg := storage.CheckWebhookEvents(v); msg != "" {
			extra = append(extra, finance.Problem{Field: "events", Message: msg})
		}
	}
	if secret, ok := write.Values["secret"].(string); ok {
		if msg := webhook.CheckSecret(secret); msg != "" {
			extra = append(extra, finance.Problem{Field: "secret", Message: msg})
		}
	}
	err = withProblems(withProblems(err, extra), problems)
	if err != nil {
		writeError(w, r, err)
		return storage.Write{}, false
	}
	return write, true
}

// createWebhook is POST /webhooks: the endpoint, with its secret (given,
// or made here) in the answer, the only time it is shown.
func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) {
	write, ok := s.readWebhook(w, r, true)
	if !ok {
		return
	}
	secret, given := write.Values["secret"].(string)
	if !given {
		secret = webhook.NewSecret()
		write.Values["secret"] = secret
	}
	p := principalOf(r.Context())
	rec, err := s.store.Create(r.Context(), s.store.Registry().MustResource(storage.Webhooks),
		storage.Scope{CompanyID: p.CompanyID, UserID: p.UserID}, write)
	if err != nil {
		writeError(w, r, err)
		return
	}
	setLocation(w, r, rec)
	writeRaw(w, http.StatusCreated, withSecret(recordEnvelope(http.StatusCreated, "Created.", rec), secret))
}

// withSecret adds "secret" to the record of an envelope (its data, the
// envelope's last member).
func withSecret(env []byte, secret string) []byte {
	enc, _ := json.Marshal(secret)
	out := append([]byte{}, env[:len(env)-2]...) // before the record's and the envelope's }
	out = append(out, `,"secret":`...)
	out = append(out, enc...)
	return append(out, "}}"...)
}

// updateWebhook is PUT /webhooks/{id}: the fields sent change; the
// secret changes only by a rotation.
func (s *Server) updateWebhook(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	write, ok := s.readWebhook(w, r, false)
	if !ok {
		return
	}
	p := principalOf(r.Context())
	rec, err := s.store.Update(r.Context(), s.store.Registry().MustResource(storage.Webhooks),
		storage.Scope{CompanyID: p.CompanyID, UserID: p.UserID}, id, write)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeRaw(w, http.StatusOK, recordEnvelope(http.StatusOK, "Updated.", rec))
}

// rotatedSecret is the answer of a rotation.
type rotatedSecret struct {
	ID     int64  `json:"id"`
	Secret string `json:"secret"`
	// PreviousSecretExpiresAt is when the replaced secret stops signing.
	PreviousSecretExpiresAt string `json:"previous_secret_expires_at"`
}

// rotateSecret is POST /webhooks/{id}/rotateSecret: a new secret, shown
// in the answer; the one it replaces signs beside it for 24 hours.
func (s *Server) rotateSecret(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	secret := webhook.NewSecret()
	expires, err := storage.RotateSecret(r.Context(), s.store.Pool(), principalOf(r.Context()).CompanyID, id, secret)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, dataEnvelope{Return: true, Status: http.StatusOK, Message: "Rotated.",
		Data: rotatedSecret{ID: id, Secret: secret, PreviousSecretExpiresAt: expires.UTC().Format("2006-01-02 15:04:05")}})
}

// testWebhook is POST /webhooks/{id}/test: a ping event delivered to the
// endpoint alone; 202 with the delivery.
func (s *Server) testWebhook(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	company := principalOf(r.Context()).CompanyID
	delivery, err := storage.EmitPing(r.Context(), s.store.Pool(), company, id)
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.writeDelivery(w, r, id, delivery)
}

// resendDelivery is POST /webhooks/{webhook}/deliveries/{id}/resend: the
// delivery's event delivered again to its endpoint, as a new delivery
// (the same webhook-id); 202 with it.
func (s *Server) resendDelivery(w http.ResponseWriter, r *http.Request) {
	endpoint, ok := pathParamID(w, r, "webhook")
	if !ok {
		return
	}
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	company := principalOf(r.Context()).CompanyID
	delivery, err := storage.ResendDelivery(r.Context(), s.store.Pool(), company, endpoint, id)
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.writeDelivery(w, r, endpoint, delivery)
}

// writeDelivery answers 202 with a new delivery, as GET
// /webhooks/{webhook}/deliveries/{id} shows it.
func (s *Server) writeDelivery(w http.ResponseWriter, r *http.Request, endpoint, id int64) {
	res := s.store.Registry().MustResource(storage.WebhookDeliveries)
	sc := storage.Scope{CompanyID: principalOf(r.Context()).CompanyID, Parent: endpoint}
	rec, err := s.store.Get(r.Context(), res, sc, id, storage.GetQuery{})
	if err != nil {
		writeError(w, r, err)
		return
	}
	w.Header().Set("Location", webhooksPath+"/"+strconv.FormatInt(endpoint, 10)+"/deliveries/"+strconv.FormatInt(id, 10))
	writeRaw(w, http.StatusAccepted, recordEnvelope(http.StatusAccepted, "Accepted.", rec))
}

// createWebhookOp describes POST /webhooks.
func createWebhookOp(doc resourceDoc) operation {
	op := doc.create()
	op.description = "Creates an endpoint: `url` (https; an address that is or resolves to a private, loopback or " +
		"link-local network is a 422 unless the configuration allows it), `events` (a list of event types, or `\"*\"` " +
		"for every type), `description`, `active` (default true), and optionally `secret` (`whsec_` and the base64 of " +
		"24 to 64 bytes; made when not given). The answer holds the secret: the only time it is shown (docs/api.md, \"Webhooks\")."
	created := recordSchema(doc.res)
	created.Properties["secret"] = openapi.String().WithDescription("The signing secret, shown in this answer only.")
	op.responses[http.StatusCreated] = jsonAnswer("Created, with the secret.", envelope(created, true))
	return op
}

// updateWebhookOp describes PUT /webhooks/{id}.
func updateWebhookOp(doc resourceDoc) operation {
	op := doc.update()
	op.description += " A new `url` is held to the network policy as on create; `active: true` on an endpoint " +
		"disabled for failing starts it anew. The secret changes only through `rotateSecret`."
	return op
}

func rotateSecretOp() operation {
	data := openapi.Object(map[string]*openapi.Schema{
		"id": openapi.Integer(), "secret": openapi.String(), "previous_secret_expires_at": openapi.String(),
	}, "id", "secret", "previous_secret_expires_at")
	return operation{tag: "webhooks", summary: "Rotate an endpoint's secret",
		description: "A new secret, shown in this answer only. The one it replaces keeps signing beside it for 24 hours " +
			"(two `v1` signatures in `webhook-signature`), so that receivers can switch without losing a delivery.",
		responses: answers(map[int]*openapi.Response{http.StatusOK: jsonAnswer("The new secret.", envelope(data, true))},
			http.StatusNotFound)}
}

// deliveryAnswer is the 202 of a delivery made: the delivery, and its
// path in Location.
func deliveryAnswer(description string) *openapi.Response {
	r := jsonAnswer(description, envelope(openapi.Ref(storage.WebhookDeliveries), true))
	r.Headers = map[string]*openapi.Header{"Location": headerRef("Location")}
	return r
}

func testWebhookOp() operation {
	return operation{tag: "webhooks", summary: "Send a ping to an endpoint",
		description: "Writes a `ping` event (its data: the endpoint) and delivers it to this endpoint alone, active or " +
			"not: 202 with the delivery, whose status shows how it went.",
		responses: answers(map[int]*openapi.Response{http.StatusAccepted: deliveryAnswer("The delivery.")}, http.StatusNotFound)}
}

func resendOp() operation {
	return operation{tag: "webhooks", summary: "Deliver an event again",
		description: "The delivery's event is delivered again to its endpoint, as a new delivery with the same " +
			"`webhook-id` (receivers deduplicate on it): 202 with the new delivery.",
		responses: answers(map[int]*openapi.Response{http.StatusAccepted: deliveryAnswer("The new delivery.")}, http.StatusNotFound)}
}
