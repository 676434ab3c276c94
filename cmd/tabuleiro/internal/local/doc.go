// Package local runs every Tabuleiro service in one process, on one gRPC
// port, with embedded stores kept under a data directory: the
// one-process mode of `tabuleiro serve` and `tabuleiro play`.
package local
