package main

import "tabuleiro.dev/web"

// The web client (module tabuleiro.dev/web, whose bundle is embedded) is
// what `serve` answers on every path of its port that is not an RPC.
func init() { webClient = web.Handler }
