package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkSVG fails unless data is well-formed XML whose root is an svg
// element with a size, drawing at least one line or point.
func checkSVG(t *testing.T, name string, data []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var root *xml.StartElement
	drawn := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "%s is not well-formed XML", name)
		if el, ok := tok.(xml.StartElement); ok {
			if root == nil {
				root = &el
			}
			if el.Name.Local == "polyline" || el.Name.Local == "circle" {
				drawn++
			}
		}
	}
	require.NotNil(t, root, name)
	assert.Equal(t, "svg", root.Name.Local, name)
	assert.Equal(t, "http://www.w3.org/2000/svg", root.Name.Space, name)
	attrs := map[string]string{}
	for _, a := range root.Attr {
		attrs[a.Name.Local] = a.Value
	}
	assert.NotEmpty(t, attrs["width"], name)
	assert.NotEmpty(t, attrs["viewBox"], name)
	assert.Positive(t, drawn, "%s draws nothing", name)
}

func TestRunWritesThePicturesAsSVG(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pictures")
	var errs bytes.Buffer
	tiny := tinyPath(t)
	require.NoError(t, run([]string{"-locomo", tiny, "-assistant", tiny, "-budget", "50", "-svg", dir}, io.Discard, &errs))
	for _, name := range []string{recallPicture, tokensPicture, cumulativePicture, paretoPicture} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		checkSVG(t, name, data)
		assert.Contains(t, errs.String(), filepath.Join(dir, name), "the run says where each picture went")
	}
}

func TestPicturesFollowTheSectionsRun(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, run([]string{"-locomo", tinyPath(t), "-only", "replay", "-svg", dir}, io.Discard, io.Discard))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{cumulativePicture, tokensPicture}, names, "without recall there is no recall to draw")
}

func TestShippedPicturesParseAsSVG(t *testing.T) {
	for _, name := range []string{recallPicture, tokensPicture, cumulativePicture, paretoPicture} {
		data, err := os.ReadFile(filepath.Join("plots", name))
		require.NoError(t, err, "the README links %s; go run ./eval writes it", name)
		checkSVG(t, name, data)
	}
}

func TestPicturesDirDefaultsOnlyForTheSyntheticData(t *testing.T) {
	root, err := moduleRoot()
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"synthetic data", nil, filepath.Join(root, plotsPath)},
		{"a LoCoMo file", []string{"-locomo", "x.json"}, ""},
		{"a folder given", []string{"-svg", "out"}, "out"},
		{"a LoCoMo file and a folder", []string{"-locomo", "x.json", "-svg", "out"}, "out"},
		{"none asked for", []string{"-svg="}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("eval", flag.ContinueOnError)
			locomo := fs.String("locomo", "", "")
			svg := fs.String("svg", "", "")
			require.NoError(t, fs.Parse(tc.args))
			assert.Equal(t, tc.want, picturesDir(fs, *svg, *locomo))
		})
	}
}

func TestFrontKeepsThePointsNothingBeatsOnBoth(t *testing.T) {
	for _, tc := range []struct {
		name   string
		points []point
		want   []point
	}{
		{"empty", nil, nil},
		{"one", []point{{5, 0.5}}, []point{{5, 0.5}}},
		{"dearer and better stays", []point{{2, 0.9}, {1, 0.5}}, []point{{1, 0.5}, {2, 0.9}}},
		{"dearer and worse goes", []point{{2, 0.4}, {1, 0.5}}, []point{{1, 0.5}}},
		{"same cost, the better", []point{{1, 0.4}, {1, 0.6}}, []point{{1, 0.6}}},
		{"same recall, the cheaper", []point{{3, 0.6}, {1, 0.6}}, []point{{1, 0.6}}},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, front(tc.points)) })
	}
}

func TestTicksAreRoundAndCoverTheRange(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []float64
	}{
		{0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{5000, 40000, []float64{5000, 10000, 15000, 20000, 25000, 30000, 35000, 40000}},
		{132, 178, []float64{130, 140, 150, 160, 170, 180}},
		{3, 3, nil},
	} {
		assert.Equal(t, tc.want, ticks(tc.lo, tc.hi), "%v to %v", tc.lo, tc.hi)
	}
}

func TestMiddleSessionsPicksWholeSessionsFromTheMiddle(t *testing.T) {
	// Six sessions of three calls each.
	var calls []callCost
	for k := range 18 {
		calls = append(calls, callCost{Cold: k%3 == 0})
	}
	from, to, first := middleSessions(calls, 2)
	assert.Equal(t, []int{6, 12, 3}, []int{from, to, first}, "sessions 3 and 4 of 6")
	from, to, first = middleSessions(calls[:6], 4)
	assert.Equal(t, []int{0, 6, 1}, []int{from, to, first}, "fewer sessions than asked: all of them")
}

func TestChartTextIsEscaped(t *testing.T) {
	c := &chart{title: `a <b> & "c"`, xFormat: integer, yFormat: integer,
		series: []series{{name: "x<y", color: "#000000", line: []point{{0, 0}, {1, 1}}}}}
	out := c.svg()
	checkSVG(t, "escaped", []byte(out))
	assert.True(t, strings.Contains(out, "a &lt;b&gt; &amp;"), out)
}
