package redisurl_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/propfin/propfin/jobs/redisurl"
	"github.com/propfin/propfin/storage/storagetest"
)

// TestCluster: a redis-cluster URL reaches every master of a real
// three-master cluster, and asynq enqueues and reads tasks on it.
func TestCluster(t *testing.T) {
	t.Parallel()
	cluster := storagetest.NewRedisCluster(t)
	target, err := redisurl.Parse("redis-cluster://" + strings.Join(cluster.Addrs, ","))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rdb := target.Client()
	defer rdb.Close()
	for i := range 100 {
		if err := rdb.Set(ctx, fmt.Sprintf("key:%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, addr := range cluster.Addrs {
		node := redis.NewClient(&redis.Options{Addr: addr})
		n, err := node.DBSize(ctx).Result()
		node.Close()
		if err != nil || n == 0 {
			t.Errorf("master %s holds %d keys (%v): the client does not spread them over the slots", addr, n, err)
		}
	}

	client := asynq.NewClient(target.Asynq())
	defer client.Close()
	if _, err := client.Enqueue(asynq.NewTask("test:cluster", []byte(`{}`)), asynq.TaskID("job-1"), asynq.Queue("bulk")); err != nil {
		t.Fatalf("enqueue on the cluster: %v", err)
	}
	inspector := asynq.NewInspector(target.Asynq())
	defer inspector.Close()
	info, err := inspector.GetTaskInfo("bulk", "job-1")
	if err != nil || info.State != asynq.TaskStatePending {
		t.Fatalf("task on the cluster: %+v %v", info, err)
	}
	if _, err := client.Enqueue(asynq.NewTask("test:cluster", []byte(`{}`)), asynq.TaskID("job-1"), asynq.Queue("bulk")); !errors.Is(err, asynq.ErrTaskIDConflict) {
		t.Errorf("the same task id again: %v, want a conflict", err)
	}
}

// TestSentinelFailover: a redis-sentinel URL writes to the master, and
// after the master dies and the Sentinel promotes the replica, to the new
// master, with what was written before.
func TestSentinelFailover(t *testing.T) {
	t.Parallel()
	sentinel := storagetest.NewRedisSentinel(t)
	target, err := redisurl.Parse("redis-sentinel://" + sentinel.Addr + "/" + sentinel.Master)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rdb := target.Client()
	defer rdb.Close()
	if err := rdb.Set(ctx, "before", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := rdb.Do(ctx, "WAIT", 1, 5000).Int(); err != nil || n != 1 {
		t.Fatalf("the replica did not acknowledge the write: %d %v", n, err)
	}
	promoted := sentinel.KillMaster(t)
	deadline := time.Now().Add(30 * time.Second)
	for err = rdb.Set(ctx, "after", "2", 0).Err(); err != nil; err = rdb.Set(ctx, "after", "2", 0).Err() {
		if time.Now().After(deadline) {
			t.Fatalf("no write after the failover: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	node := redis.NewClient(&redis.Options{Addr: promoted})
	defer node.Close()
	if got, err := node.MGet(ctx, "before", "after").Result(); err != nil || fmt.Sprint(got) != "[1 2]" {
		t.Errorf("the new master %s holds %v %v", promoted, got, err)
	}
}
