package redisstore

import (
	"os"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// On a cluster, when the slot of a followed match moves to another node
// (here a manual failover: the primary's replica takes its slots over,
// and Redis ends the sharded subscriptions of those slots), the hub
// subscribes to the slot's channels again on the new primary: the old
// subscriber is closed (it catches up from the stream), and a new one gets
// what is published next. It changes the cluster's roles, so it runs only
// where nothing else uses the cluster: at the end of the cluster step of
// scripts/test.sh (TABULEIRO_TEST_CLUSTER_FAILOVER=1).
func TestHubFollowsASlotToItsNewPrimary(t *testing.T) {
	if os.Getenv("TABULEIRO_TEST_CLUSTER_FAILOVER") == "" {
		t.Skip("set TABULEIRO_TEST_CLUSTER_FAILOVER=1 with a cluster nothing else uses (scripts/test.sh cluster)")
	}
	h, s, rdb := runHub(t, "hub-"+strings.ToLower(t.Name()))
	cluster, ok := rdb.(*redis.ClusterClient)
	if !ok {
		t.Fatal("TABULEIRO_TEST_CLUSTER_FAILOVER needs TABULEIRO_TEST_REDIS_URL on a cluster")
	}
	ch := subscribeGets(t, h, s, rdb, "m2", 1)
	ctx := t.Context()
	primary, err := cluster.MasterForKey(ctx, s.Channel("m2"))
	if err != nil {
		t.Fatal(err)
	}
	id, err := primary.ClusterMyID(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := primary.ClusterNodes(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	replica := ""
	for _, line := range strings.Split(nodes, "\n") {
		if f := strings.Fields(line); len(f) > 3 && f[3] == id {
			replica, _, _ = strings.Cut(f[1], "@")
		}
	}
	if replica == "" {
		t.Fatalf("no replica of %s:\n%s", primary.Options().Addr, nodes)
	}
	rc := redis.NewClient(&redis.Options{Addr: replica})
	defer rc.Close()
	if err := rc.ClusterFailover(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	for {
		if _, ok := next(t, ch); !ok {
			break // closed: subscribed again on the new primary
		}
	}
	subscribeGets(t, h, s, rdb, "m2", 2)
	role, err := rc.Do(ctx, "ROLE").Slice()
	if err != nil {
		t.Fatal(err)
	}
	if len(role) == 0 || role[0] != "master" {
		t.Fatalf("%s after the failover: ROLE %v, want master", replica, role)
	}
}
