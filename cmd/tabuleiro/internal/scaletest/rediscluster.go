package scaletest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/platform/testenv"
)

// A Redis Cluster on loopback, as scripts/redis-cluster.sh starts one:
// Options.RedisCluster primaries, each with one replica, every node a
// redis-server process (Cluster.RedisNodes) with cluster-node-timeout 2 s
// (a killed primary's replica takes over within seconds), no persistence
// but its nodes.conf, so that a node killed and started again rejoins the
// cluster (a killed primary comes back as a replica of its promoted one).

func (c *Cluster) startRedisCluster(primaries int) {
	c.t.Helper()
	ports := testenv.FreePorts(c.t, 2*primaries, 10000) // each node's bus is its port + 10000
	var addrs []string
	for i, port := range ports {
		dir := filepath.Join(c.dir, fmt.Sprintf("redis-%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			c.t.Fatal(err)
		}
		p := &Proc{Name: fmt.Sprintf("redis-%d", i), Addr: fmt.Sprintf("127.0.0.1:%d", port), bin: "redis-server",
			args: []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir, "--save", "", "--appendonly", "no",
				"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000",
				"--repl-diskless-sync-delay", "0"},
			log: filepath.Join(c.dir, fmt.Sprintf("redis-%d.log", i)), dir: dir, env: []string{"PATH=" + os.Getenv("PATH")}}
		if err := p.Start(); err != nil {
			c.t.Fatal(err)
		}
		c.RedisNodes = append(c.RedisNodes, p)
		addrs = append(addrs, p.Addr)
	}
	for _, p := range c.RedisNodes {
		c.waitRedis(p)
	}
	out, err := exec.Command("redis-cli", append(append([]string{"--cluster", "create"}, addrs...),
		"--cluster-replicas", "1", "--cluster-yes")...).CombinedOutput()
	if err != nil {
		c.t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	c.RedisURL = "redis-cluster://" + strings.Join(addrs[:primaries], ",")
	for _, p := range c.RedisNodes {
		c.waitClusterOK(p)
	}
}

// node is a client of one cluster node.
func node(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: 2 * time.Second})
}

func (c *Cluster) waitRedis(p *Proc) {
	c.t.Helper()
	rdb := node(p.Addr)
	defer rdb.Close()
	c.until(p.Name+" answers", func() bool {
		if !p.Alive() {
			c.t.Fatalf("%s exited (%s)\n%s", p.Name, p.ExitStatus(), tail(p.Log(), 2000))
		}
		return rdb.Ping(context.Background()).Err() == nil
	})
}

func (c *Cluster) waitClusterOK(p *Proc) {
	c.t.Helper()
	rdb := node(p.Addr)
	defer rdb.Close()
	c.until(p.Name+" sees the cluster ok", func() bool {
		info, err := rdb.ClusterInfo(context.Background()).Result()
		return err == nil && strings.Contains(info, "cluster_state:ok")
	})
}

// until polls cond until it holds, failing the test when its time runs out.
func (c *Cluster) until(what string, cond func() bool) {
	c.t.Helper()
	deadline := Deadline(c.t)
	for !cond() {
		if time.Now().After(deadline) {
			c.t.Fatalf("%s: not when the test's time ran out", what)
		}
		poll(50 * time.Millisecond)
	}
}

// RedisNode returns the cluster node at addr.
func (c *Cluster) RedisNode(addr string) *Proc {
	for _, p := range c.RedisNodes {
		if p.Addr == addr {
			return p
		}
	}
	c.t.Fatalf("no cluster node at %s", addr)
	return nil
}

// PrimaryOfSlot returns the address of the primary serving slot, as a
// running node sees the slot map.
func (c *Cluster) PrimaryOfSlot(slot int) string {
	c.t.Helper()
	for _, p := range c.RedisNodes {
		if !p.Alive() {
			continue
		}
		rdb := node(p.Addr)
		ranges, err := rdb.ClusterSlots(context.Background()).Result()
		_ = rdb.Close()
		if err != nil {
			continue
		}
		for _, r := range ranges {
			if slot >= r.Start && slot <= r.End && len(r.Nodes) > 0 {
				return r.Nodes[0].Addr
			}
		}
	}
	c.t.Fatalf("no running node knows slot %d", slot)
	return ""
}

// WaitPromoted waits until every running node sees slot served by a
// primary other than old and the cluster ok, and returns that primary.
func (c *Cluster) WaitPromoted(slot int, old string) string {
	c.t.Helper()
	var promoted string
	c.until("a replica promoted in place of "+old, func() bool {
		promoted = ""
		for _, p := range c.RedisNodes {
			if !p.Alive() {
				continue
			}
			rdb := node(p.Addr)
			info, err := rdb.ClusterInfo(context.Background()).Result()
			ranges, err2 := rdb.ClusterSlots(context.Background()).Result()
			_ = rdb.Close()
			if err != nil || err2 != nil || !strings.Contains(info, "cluster_state:ok") {
				return false
			}
			owner := ""
			for _, r := range ranges {
				if slot >= r.Start && slot <= r.End && len(r.Nodes) > 0 {
					owner = r.Nodes[0].Addr
				}
			}
			if owner == "" || owner == old || promoted != "" && owner != promoted {
				return false
			}
			promoted = owner
		}
		return true
	})
	return promoted
}

// WaitReplicaInSync waits until the node p replicates a primary with its
// link up and its first sync done.
func (c *Cluster) WaitReplicaInSync(p *Proc) {
	c.t.Helper()
	rdb := node(p.Addr)
	defer rdb.Close()
	c.until(p.Name+" in sync as a replica", func() bool {
		info, err := rdb.Info(context.Background(), "replication").Result()
		return err == nil && strings.Contains(info, "role:slave") && strings.Contains(info, "master_link_status:up") &&
			strings.Contains(info, "master_sync_in_progress:0")
	})
}
