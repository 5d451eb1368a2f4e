// Package webhook is what a webhook delivery needs beside the job
// platform: the Standard Webhooks signature (secrets, the signed content,
// the headers), and the network policy every endpoint's address is held
// to (no plain http but to loopback when allowed, no private, loopback or
// link-local address unless allowed), checked when an endpoint is written
// and again when its connection is dialed, so that a name that resolves
// elsewhere later (DNS rebinding) is refused all the same. docs/api.md,
// "Webhooks", has the contract integrators rely on.
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix starts every secret, as Standard Webhooks writes them: the
// rest is the key, in standard base64.
const SecretPrefix = "whsec_"

// SecretBytes is the size of a generated key: 32 bytes (256 bits, the
// size of HMAC-SHA256's block output).
const SecretBytes = 32

// The sizes of a key a client gives, in bytes: Standard Webhooks' 24 to
// 64.
const (
	MinSecretBytes = 24
	MaxSecretBytes = 64
)

// NewSecret makes a secret of SecretBytes random bytes.
func NewSecret() string {
	key := make([]byte, SecretBytes)
	rand.Read(key) //nolint:errcheck // crypto/rand.Read never fails (Go 1.24+)
	return SecretPrefix + base64.StdEncoding.EncodeToString(key)
}

// CheckSecret says why a secret given by a client is not one: "" when it
// is whsec_ and the base64 of 24 to 64 bytes.
func CheckSecret(secret string) string {
	key, err := secretKey(secret)
	if err != nil {
		return "must be " + SecretPrefix + " and the base64 of 24 to 64 random bytes"
	}
	if len(key) < MinSecretBytes || len(key) > MaxSecretBytes {
		return fmt.Sprintf("must hold %d to %d bytes (it holds %d)", MinSecretBytes, MaxSecretBytes, len(key))
	}
	return ""
}

func secretKey(secret string) ([]byte, error) {
	rest, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, errors.New("webhook: a secret starts with " + SecretPrefix)
	}
	return base64.StdEncoding.DecodeString(rest)
}

// Sign is the v1 signature of a message: "v1," and the base64 of the
// HMAC-SHA256, keyed by the secret's key, of "id.timestamp.body".
func Sign(secret, id string, at time.Time, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))                                           //nolint:errcheck // a hash takes every write
	mac.Write([]byte("." + strconv.FormatInt(at.Unix(), 10) + ".")) //nolint:errcheck
	mac.Write(body)                                                 //nolint:errcheck
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Header names of Standard Webhooks.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// SetHeaders sets the Standard Webhooks headers of a delivery: its id (the
// event's), the time it is signed at (Unix seconds), and one v1 signature
// per secret, space-separated (the current secret first; the previous one
// beside it during a rotation's overlap).
func SetHeaders(h http.Header, id string, at time.Time, body []byte, secrets ...string) error {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		if s == "" {
			continue
		}
		sig, err := Sign(s, id, at, body)
		if err != nil {
			return err
		}
		sigs = append(sigs, sig)
	}
	if len(sigs) == 0 {
		return errors.New("webhook: no secret to sign with")
	}
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(at.Unix(), 10))
	h.Set(HeaderSignature, strings.Join(sigs, " "))
	return nil
}
