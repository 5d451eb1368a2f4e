package main

import (
	"testing"
	"time"

	"github.com/propfin/propfin/jobs"
)

// TestConfigWebhookRetention: PROPFIN_WEBHOOK_RETENTION is how long
// webhook events are kept, a positive duration, 30 days unset; it is its
// own setting, apart from PROPFIN_JOB_RETENTION.
func TestConfigWebhookRetention(t *testing.T) {
	for _, c := range []struct {
		value string
		want  time.Duration // 0: refused
	}{
		{"", jobs.DefaultWebhookRetention},
		{"2160h", 90 * 24 * time.Hour},
		{"72h", 72 * time.Hour},
		{"0s", 0},
		{"-1h", 0},
		{"30", 0},
	} {
		t.Setenv("PROPFIN_WEBHOOK_RETENTION", c.value)
		t.Setenv("PROPFIN_JOB_RETENTION", "240h")
		cfg, err := loadConfig()
		if (err == nil) != (c.want != 0) {
			t.Errorf("%q: %v", c.value, err)
			continue
		}
		if err == nil && (cfg.WebhookRetention != c.want || cfg.JobRetention != 240*time.Hour) {
			t.Errorf("%q: webhook retention %v, job retention %v; want %v and 240h", c.value, cfg.WebhookRetention, cfg.JobRetention, c.want)
		}
	}
	if jobs.DefaultWebhookRetention != 30*24*time.Hour {
		t.Errorf("default %v, want 720h as documented", jobs.DefaultWebhookRetention)
	}
}

// TestConfigJobRetentionLowerBound: PROPFIN_JOB_RETENTION under
// jobs.MinRetention (the two nights the scheduler reads back) is refused;
// the bound itself is taken.
func TestConfigJobRetentionLowerBound(t *testing.T) {
	for _, c := range []struct {
		value string
		ok    bool
	}{{"10m", false}, {"48h", false}, {"71h59m", false}, {"72h", true}, {"720h", true}, {"", true}} {
		t.Setenv("PROPFIN_JOB_RETENTION", c.value)
		if _, err := loadConfig(); (err == nil) != c.ok {
			t.Errorf("%q: %v, want ok %v", c.value, err, c.ok)
		}
	}
}
