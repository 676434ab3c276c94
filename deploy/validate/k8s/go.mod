module tabuleiro.dev/deploy/validate/k8s

go 1.26.8

require (
	k8s.io/api v0.37.2 // indirect
	k8s.io/apimachinery v0.37.2 // indirect
	k8s.io/client-go v0.37.2 // indirect
)
