package scaletest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/platform/redisconn"

	"tabuleiro.dev/pkg/platform/testenv"
)

// Restart starts p again and waits for it to serve.
func (c *Cluster) Restart(p *Proc) {
	c.t.Helper()
	if err := p.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.WaitServing(p)
}

// RDB is a client of the cluster's Redis.
func (c *Cluster) RDB() redis.UniversalClient {
	if c.rdb == nil {
		rdb, err := redisconn.Open(c.RedisURL)
		if err != nil {
			c.t.Fatal(err)
		}
		c.rdb = rdb
	}
	return c.rdb
}

func (c *Cluster) startRedis() {
	c.t.Helper()
	port := testenv.FreePort(c.t)
	dir := filepath.Join(c.dir, "redis")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		c.t.Fatal(err)
	}
	args := []string{"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", dir, "--save", ""}
	if c.Opts.RedisAppendOnly {
		args = append(args, "--appendonly", "yes", "--appendfsync", "everysec")
	} else {
		args = append(args, "--appendonly", "no")
	}
	c.Redis = &Proc{Name: "redis", Addr: fmt.Sprintf("127.0.0.1:%d", port), bin: "redis-server", args: args,
		log: filepath.Join(c.dir, "redis.log"), dir: dir, env: []string{"PATH=" + os.Getenv("PATH")}}
	c.RedisURL = fmt.Sprintf("redis://127.0.0.1:%d/0", port)
	c.StartRedis()
}

// StartRedis starts Redis (again) and waits for PONG.
func (c *Cluster) StartRedis() {
	c.t.Helper()
	if err := c.Redis.Start(); err != nil {
		c.t.Fatal(err)
	}
	deadline := Deadline(c.t)
	for time.Now().Before(deadline) {
		if !c.Redis.Alive() {
			c.t.Fatalf("redis exited before answering (%s)\n%s", c.Redis.ExitStatus(), tail(c.Redis.Log(), 2000))
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.RDB().Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		poll(20 * time.Millisecond)
	}
	c.t.Fatalf("redis did not answer when the test's time ran out\n%s", tail(c.Redis.Log(), 2000))
}

func (c *Cluster) startPostgres() {
	c.t.Helper()
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(matches) == 0 {
		c.t.Fatal("PostgreSQL is not installed: run scripts/test.sh, which installs it")
	}
	c.pgBin = filepath.Dir(matches[len(matches)-1])
	dir, err := os.MkdirTemp("/tmp", "scaletest-pg-") // user postgres must reach it
	if err != nil {
		c.t.Fatal(err)
	}
	c.PGData = filepath.Join(dir, "data")
	c.t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		c.t.Fatal(err)
	}
	if out, err := exec.Command("install", "-d", "-o", "postgres", "-g", "postgres", "-m", "700", c.PGData).CombinedOutput(); err != nil {
		c.t.Fatalf("pg data dir: %v %s", err, out)
	}
	if out, err := c.asPostgres("initdb", "-D", c.PGData, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"); err != nil {
		c.t.Fatalf("initdb: %v\n%s", err, out)
	}
	c.PGPort = testenv.FreePort(c.t)
	c.DatabaseURL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.PGPort)
	c.StartPostgres()
}

func (c *Cluster) asPostgres(tool string, args ...string) ([]byte, error) {
	return exec.Command("runuser", append([]string{"-u", "postgres", "--", filepath.Join(c.pgBin, tool)}, args...)...).CombinedOutput()
}

// StartPostgres starts the cluster's PostgreSQL (again).
func (c *Cluster) StartPostgres() {
	c.t.Helper()
	out, err := c.asPostgres("pg_ctl", "-D", c.PGData, "-l", filepath.Join(c.PGData, "server.log"), "-w", "-t", "900", "start", "-o",
		fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", c.PGPort, c.PGData))
	if err != nil {
		c.t.Fatalf("pg_ctl start: %v\n%s", err, out)
	}
}

// StopPostgres stops it (fast mode: connections are cut).
func (c *Cluster) StopPostgres() {
	c.t.Helper()
	if out, err := c.asPostgres("pg_ctl", "-D", c.PGData, "-m", "fast", "-w", "stop"); err != nil {
		c.t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

func (c *Cluster) stop() {
	procs := append(append(append([]*Proc{}, c.Lobby...), c.Match...), c.Bot...)
	if c.Edge != nil {
		procs = append(procs, c.Edge)
	}
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(p.Kill)
	}
	wg.Wait()
	if c.rdb != nil {
		_ = c.rdb.Close()
	}
	if c.Redis != nil {
		c.Redis.Kill()
	}
	for _, p := range c.RedisNodes {
		wg.Go(p.Kill)
	}
	wg.Wait()
	if c.PGData != "" {
		_, _ = c.asPostgres("pg_ctl", "-D", c.PGData, "-m", "immediate", "-w", "stop")
	}
	if c.t.Failed() {
		for _, p := range procs {
			c.t.Logf("--- %s log (tail)\n%s", p.Name, tail(p.Log(), 3000))
		}
	}
}
