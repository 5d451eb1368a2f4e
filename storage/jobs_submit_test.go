package storage_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/propfin/propfin/storage"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestSubmitJobAnswersTheRowAsStored: every way of submitting answers the
// job as GET /jobs/{id} reads it back, a plain submission (whose insert
// returns only its id and time) as a keyed one, and a second submission of
// a unique key answers the first job.
func TestSubmitJobAnswersTheRowAsStored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := storagetest.NewDB(t)
	company, _, err := storage.EnsureCompany(ctx, pool, "Submit")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		nj   storage.NewJob
	}{
		{"plain", storage.NewJob{Kind: "k", Queue: "default", Payload: json.RawMessage(`{"a":1}`), SubmittedBy: "test"}},
		{"unique key", storage.NewJob{Kind: "k", Queue: "low", UniqueKey: "2024-01-01", SubmittedBy: "scheduler", UserID: 0}},
		{"idempotency key", storage.NewJob{Kind: "k", Queue: "default", SubmittedBy: "api_key:1",
			IdempotencyKey: "key-1", RequestHash: []byte{1, 2}}},
	}
	for _, c := range cases {
		job, found, err := storage.SubmitJob(ctx, pool, company, c.nj)
		if err != nil || found != storage.FoundNothing {
			t.Fatalf("%s: found %v, %v", c.name, found, err)
		}
		stored, err := storage.GetJob(ctx, pool, company, job.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(job, stored) {
			t.Errorf("%s: submit answered %+v, the row reads %+v", c.name, job, stored)
		}
		again, found, err := storage.SubmitJob(ctx, pool, company, c.nj)
		if err != nil {
			t.Fatal(err)
		}
		if c.nj.UniqueKey != "" || c.nj.IdempotencyKey != "" {
			if again.ID != job.ID || found == storage.FoundNothing {
				t.Errorf("%s: a second submission made job %d (found %v), want job %d", c.name, again.ID, found, job.ID)
			}
		} else if again.ID == job.ID {
			t.Errorf("%s: a second submission answered the first job", c.name)
		}
	}
}
