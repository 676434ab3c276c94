package serve

import (
	"net/netip"
	"slices"
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
)

// env is an environment in English, for the functions that write a message.
var env = &cli.Env{P: text.English}

func TestParseProxies(t *testing.T) {
	t.Parallel()
	got, err := parseProxies(env, []string{"127.0.0.1", " 10.1.2.3/8 ", "::1", "::ffff:192.0.2.1"})
	want := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("192.0.2.1/32")}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("parseProxies = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"", "nope", "10.0.0.0/99"} {
		if _, err := parseProxies(env, []string{bad}); err == nil {
			t.Errorf("parseProxies(%q) accepted", bad)
		}
	}
}

// serve's help and its flags' usage are in the player's language, as the
// other commands' are.
func TestServeHelpTranslated(t *testing.T) {
	t.Parallel()
	clitest.Commands{New}.HelpTranslated(t) // not the hidden embedded-redis, a test tool
}
