package termtext

import "testing"

func TestColumnsAlignsWrappedValuesUnderTheirFirstLine(t *testing.T) {
	got := Columns([][2]string{
		{"", "a heading line"},
		{"web:", "open http://localhost:7070/ in a browser"},
		{"estado ao vivo:", "Redis embutido em /um/diretório/bem/longo"},
	}, 2, 40)
	want := "a heading line\n" +
		"  web:            open\n" +
		"                  http://localhost:7070/\n" +
		"                  in a browser\n" +
		"  estado ao vivo: Redis embutido em\n" +
		"                  /um/diretório/bem/\n" +
		"                  longo\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
