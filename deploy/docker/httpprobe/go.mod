module tabuleiro.dev/deploy/docker/httpprobe

go 1.26
