package redisconn

import (
	"strings"
	"testing"
)

func TestOpen(t *testing.T) {
	c, err := Open("redis://:secret@127.0.0.1:6390/2")
	if err != nil {
		t.Fatal(err)
	}
	if o := c.Options(); o.Addr != "127.0.0.1:6390" || o.DB != 2 || o.Password != "secret" {
		t.Errorf("single server options: %+v", o)
	}
	c.Close()
	c, err = Open("redis://127.0.0.1:26379/0?master_name=tabuleiro&addr=127.0.0.1:26380")
	if err != nil {
		t.Fatal(err)
	}
	// A failover client dials the primary that the Sentinels name.
	if o := c.Options(); o.Addr != "FailoverClient" {
		t.Errorf("sentinel URL gave a plain client to %s", o.Addr)
	}
	c.Close()
	for _, bad := range []string{
		"redis://127.0.0.1:26379/0?master_name=",
		"redis://127.0.0.1:7000?addr=127.0.0.1:7001",
		"http://127.0.0.1:6379",
		"redis://:pw@127.0.0.1:6379/0?unknown_option=1&master_name=x",
	} {
		if _, err := Open(bad); err == nil {
			t.Errorf("Open(%q) succeeded", bad)
		} else if strings.Contains(err.Error(), "pw@") {
			t.Errorf("error echoes the password: %v", err)
		}
	}
}
