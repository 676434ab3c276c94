package redisconn

import (
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestOpen(t *testing.T) {
	c, err := Open("redis://:secret@127.0.0.1:6390/2")
	if err != nil {
		t.Fatal(err)
	}
	if o := c.(*redis.Client).Options(); o.Addr != "127.0.0.1:6390" || o.DB != 2 || o.Password != "secret" {
		t.Errorf("single server options: %+v", o)
	}
	c.Close()
	for _, sentinel := range []string{
		"redis://127.0.0.1:26379/0?master_name=tabuleiro&addr=127.0.0.1:26380",
		"redis-sentinel://127.0.0.1:26379,127.0.0.1:26380/0?master_name=tabuleiro",
	} {
		c, err = Open(sentinel)
		if err != nil {
			t.Fatal(err)
		}
		// A failover client dials the primary that the Sentinels name.
		if o := c.(*redis.Client).Options(); o.Addr != "FailoverClient" {
			t.Errorf("sentinel URL %s gave a plain client to %s", sentinel, o.Addr)
		}
		c.Close()
	}
	c, err = Open("redis-cluster://:secret@127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002?read_timeout=5s")
	if err != nil {
		t.Fatal(err)
	}
	cc, ok := c.(*redis.ClusterClient)
	if !ok {
		t.Fatalf("cluster URL gave a %T", c)
	}
	if o := cc.Options(); !slices.Equal(o.Addrs, []string{"127.0.0.1:7000", "127.0.0.1:7001", "127.0.0.1:7002"}) || o.Password != "secret" || o.ReadTimeout.Seconds() != 5 {
		t.Errorf("cluster options: addrs %v, password %q, read timeout %v", o.Addrs, o.Password, o.ReadTimeout)
	}
	c.Close()
	for _, bad := range []string{
		"redis://127.0.0.1:26379/0?master_name=",
		"redis://127.0.0.1:7000?addr=127.0.0.1:7001",
		"redis://127.0.0.1:7000,127.0.0.1:7001",
		"redis-sentinel://127.0.0.1:26379,127.0.0.1:26380/0",
		"redis-cluster://127.0.0.1:7000/3",
		"http://127.0.0.1:6379",
		"redis://:pw@127.0.0.1:6379/0?unknown_option=1&master_name=x",
		"redis-cluster://:pw@127.0.0.1:7000?unknown_option=1",
	} {
		if _, err := Open(bad); err == nil {
			t.Errorf("Open(%q) succeeded", bad)
		} else if strings.Contains(err.Error(), "pw@") {
			t.Errorf("error echoes the password: %v", err)
		}
	}
}
