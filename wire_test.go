package byheart

// The JSON form's values: turn times that come back exactly, and lists read
// in one pass into storage of their own size.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // historical zones, whatever the machine has installed

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sameTime reports whether a and b are the same instant at the same offset.
func sameTime(a, b time.Time) bool {
	_, oa := a.Zone()
	_, ob := b.Zone()
	return a.Equal(b) && oa == ob
}

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	require.NoError(t, err)
	return loc
}

func TestTimesComeBackAtTheirInstantAndOffset(t *testing.T) {
	t.Parallel()
	amsterdam := mustZone(t, "Europe/Amsterdam")
	monrovia := mustZone(t, "Africa/Monrovia")
	cases := []struct {
		when time.Time
		text string // as ToJSON writes it
	}{
		{time.Date(2023, 5, 20, 9, 30, 0, 0, time.UTC), "2023-05-20T09:30:00Z"},
		{time.Date(2023, 5, 20, 9, 30, 0, 120_000_000, time.FixedZone("", 2*3600)), "2023-05-20T09:30:00.12+02:00"},
		{time.Date(1930, 1, 1, 0, 0, 10, 0, amsterdam), "1930-01-01T00:00:10+00:19:32"},
		{time.Date(1950, 6, 1, 23, 59, 59, 999_999_999, monrovia), "1950-06-01T23:59:59.999999999-00:44:30"},
		{time.Date(2023, 5, 20, 9, 30, 0, 0, time.FixedZone("", -(23*3600+59*60+59))), "2023-05-20T09:30:00-23:59:59"},
		{time.Date(0, 1, 1, 0, 0, 0, 0, time.FixedZone("", 3600)), "0000-01-01T00:00:00+01:00"},
		{time.Date(9999, 12, 31, 23, 59, 59, 1, time.FixedZone("", -60)), "9999-12-31T23:59:59.000000001-00:01"},
	}
	for _, c := range cases {
		b, err := appendTime(nil, c.when)
		require.NoError(t, err)
		assert.Equal(t, c.text, string(b))
		w, err := parseTime(b)
		require.NoError(t, err, c.text)
		got := zones{}.time(w)
		assert.True(t, sameTime(c.when, got), "%s came back as %v", c.text, got)
		again, err := appendTime(nil, got)
		require.NoError(t, err)
		assert.Equal(t, c.text, string(again))
	}
}

func TestTimesWithoutSecondsInTheOffsetAreWrittenAsTimeWritesThem(t *testing.T) {
	t.Parallel()
	for _, when := range []time.Time{
		time.Date(2023, 5, 20, 9, 30, 0, 0, time.UTC),
		time.Date(2023, 5, 20, 9, 30, 0, 5, time.FixedZone("x", -5*3600-30*60)),
		time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC),
	} {
		want, err := when.MarshalText()
		require.NoError(t, err)
		got, err := appendTime(nil, when)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "saves written before stay byte for byte")
	}
}

func TestTimesToJSONCannotWriteAreRefusedBothWays(t *testing.T) {
	t.Parallel()
	for _, when := range []time.Time{
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 12, 31, 0, 0, 0, 0, time.UTC),
		time.Date(2023, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600)),
		time.Date(2023, 1, 1, 0, 0, 0, 0, time.FixedZone("", -24*3600-1)),
	} {
		_, err := appendTime(nil, when)
		assert.ErrorIs(t, err, ErrTime, "%v", when)
		m := New(Options{})
		_, err = m.AppendAt(User, "hi", when)
		assert.ErrorIs(t, err, ErrTime, "%v", when)
		assert.Zero(t, m.Len())
	}
	for _, text := range []string{
		"2023-05-20T09:30:00+24:00",
		"2023-05-20T09:30:00+00:60",
		"2023-05-20T09:30:00+01:00:60",
		"2023-05-20T09:30:00+1:00",
		"2023-05-20T09:30:00+01:00:5",
		"2023-05-20T09:30:00+01",
		"2023-05-20T09:30:00",
		"2023-05-20T24:00:00Z",
		"2023-05-20T09:60:00Z",
		"2023-05-20T09:30:60Z",
		"2023-02-29T09:30:00Z",
		"2023-13-01T09:30:00Z",
		"2023-00-01T09:30:00Z",
		"2023-05-00T09:30:00Z",
		"10000-05-20T09:30:00Z",
		"-0001-05-20T09:30:00Z",
		"2023-05-20t09:30:00Z",
		"2023-05-20T09:30:00z",
		"2023-05-20 09:30:00Z",
		"2023-05-20T09:30:00.Z",
		"2023-05-20T09:30:00.1234567891Z",
		"2023-05-20T09:30:00Z ",
		"2023-05-20T09:30:00ZZ",
		`2023-05-20T09:30:00\u005a`,
		"",
	} {
		_, err := parseTime([]byte(text))
		assert.Error(t, err, "%q", text)
		doc := `{"version":1,"turns":[{"role":"user","text":"hi","time":"` + text + `"}]}`
		m, err := FromJSON([]byte(doc), Options{})
		assert.ErrorIs(t, err, ErrFormat, "%q", text)
		assert.Nil(t, m)
		if err != nil {
			assert.Contains(t, err.Error(), "time", "%q", text)
		}
	}
}

func TestTimesReadAsOldSavesWroteThem(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"2024-02-29T23:59:59.5-09:30", "0001-01-01T00:00:00Z", "2023-05-20T09:30:00-00:00"} {
		var want time.Time
		require.NoError(t, want.UnmarshalText([]byte(text)))
		w, err := parseTime([]byte(text))
		require.NoError(t, err)
		assert.True(t, sameTime(want, zones{}.time(w)), text)
	}
}

func TestOneLocationPerOffset(t *testing.T) {
	t.Parallel()
	z := zones{}
	a := z.time(wireTime{sec: 100 + sinceYear1, off: 3600})
	b := z.time(wireTime{sec: 200 + sinceYear1, off: 3600})
	assert.Same(t, a.Location(), b.Location())
	assert.Equal(t, time.UTC, z.time(wireTime{sec: 1, off: 0}).Location())
	assert.True(t, z.time(wireTime{}).IsZero(), "the zero value is no time")
}

func TestElementsSplitsAValidArray(t *testing.T) {
	t.Parallel()
	for data, want := range map[string][]string{
		`[]`:                            nil,
		` [ ] `:                         nil,
		`[1]`:                           {"1"},
		`[ 1 , -2.5e3 ,"a,]\"[",null ]`: {"1", "-2.5e3", `"a,]\"["`, "null"},
		`[[1,[2]],{"a":[3,{}]},true]`:   {"[1,[2]]", `{"a":[3,{}]}`, "true"},
	} {
		require.True(t, json.Valid([]byte(data)))
		var got []string
		b := []byte(strings.TrimSpace(data))
		n := elements(b, func(start, end int) { got = append(got, string(b[start:end])) })
		assert.Equal(t, want, got, data)
		assert.Equal(t, len(want), n, data)
	}
}

func TestBoundListKeepsIntegersAndRefusesWhatIsNoNumber(t *testing.T) {
	t.Parallel()
	for data, want := range map[string][]int{
		`null`:                      nil,
		`[]`:                        {},
		`[0,5,-3,999]`:              {0, 5, -3, 999},
		`[1.5,1e3,-0,"7","\u0038"]`: {0, 7, 8},
		`[9223372036854775807,9223372036854775808,-9223372036854775808,-9223372036854775809]`: {9223372036854775807, -9223372036854775808},
		`["2.5","99999999999999999999999","-4",null,3]`:                                       {-4, 3},
	} {
		var l boundList
		require.NoError(t, json.Unmarshal([]byte(data), &l), data)
		assert.Equal(t, want, []int(l), data)
	}
	for _, data := range []string{`{}`, `"0"`, `true`, `[true]`, `[[1]]`, `[{}]`, `[""]`, `["\n1"]`, `["é"]`, `["x1"]`, `[1,"1-"]`} {
		var l boundList
		var te *json.UnmarshalTypeError
		assert.True(t, errors.As(json.Unmarshal([]byte(data), &l), &te), data)
	}
}

// readSaveMatchesJSON checks readSave against json.Unmarshal on data: where
// it reads data at all, it must decode what json.Unmarshal does and fail
// as it does.
func readSaveMatchesJSON(t *testing.T, data []byte) (read bool) {
	t.Helper()
	data = bytes.Trim(data, " \t\r\n")
	if len(data) == 0 {
		return false
	}
	var fast, std wireIn
	read, err := readSave(data, &fast)
	if !read {
		require.NoError(t, err)
		require.Equal(t, wireIn{}, fast, "readSave wrote what it did not read")
		return false
	}
	stdErr := json.Unmarshal(data, &std)
	if stdErr != nil {
		require.Error(t, err, "json.Unmarshal fails: %v", stdErr)
		require.Equal(t, stdErr.Error(), err.Error())
		return true
	}
	require.NoError(t, err)
	require.Equal(t, std, fast)
	require.True(t, (std.Turns == nil) == (fast.Turns == nil) && cap(std.Turns) == cap(fast.Turns))
	return true
}

// TestReadSaveReadsAsEncodingJSON holds the save reader to json.Unmarshal on
// saves the library writes, on the seeds of the fuzz targets, and on
// variants of a save in each way it may differ from ToJSON's shape.
func TestReadSaveReadsAsEncodingJSON(t *testing.T) {
	m := sampleMemory(t)
	compose(t, m, "what about the race?")
	agent := New(Options{Budget: 400, Chunk: 60})
	fillTurns(agent, agentStep(40))
	compose(t, agent, "supplier day 7")
	big := New(Options{})
	fillTurns(big, chat(3, 300))
	compose(t, big, "the weather")
	saves := []string{mustJSON(t, m), mustJSON(t, agent), mustJSON(t, big), mustJSON(t, New(Options{}))}
	for _, s := range saves {
		require.True(t, readSaveMatchesJSON(t, []byte(s)), "a save ToJSON wrote is read")
	}
	cases := []string{
		`{"version":1,"turns":[{"role":"user","text":"hi"},{"role":"assistant","text":"hello"}],"bounds":[0,1,1,-4,99]}`,
		`{"version":4,"turns":[{"role":"user","text":"code 4711","time":"2023-05-20T09:30:00Z","expires":"2023-05-20T09:00:00+00:19:32"},{"role":"assistant","text":"ok","expires":"9999-12-31T23:59:59Z"}],"bounds":[0,1],"selection":{"keys":[0],"ends":[1],"upto":1,"clock":"2023-05-20T09:30:00Z"}}`,
		`{"version":1,"turns":[{"role":"user","text":"\u0000\r\n\u2028 \"q\" \\ \/ \b\f\t \u00e9\u4e2d"}]}`,
		`{"version":1,"turns":[{"role":"user","text":"\ud800 lone surrogate"}]}`,
		`{"version":1,"turns":[{"role":"user","text":"\ud83d\ude00 pair"}]}`,
		"{\"version\":1,\"turns\":[{\"role\":\"user\",\"text\":\"bad \xff utf-8\"}]}",
		"{\"version\":1,\"turns\":[{\"role\":\"user\",\"text\":\"raw \x01 control\"}]}",
		`{"version":1,"turns":[{"role":"user","text":"a","time":"2023-05-20T25:30:00Z"},{"role":"user","text":"b","time":"x"}]}`,
		`{"version":1,"turns":[{"role":"user","text":"a","time":"2023-05-20T09:30:00Z"}],"bounds":"x"}`,
		`{"version":1,"turns":[{"role":"user","text":"a","time":null,"expires":null,"redacted":null,"agent":null}]}`,
		`{"version":1,"turns":[{"role":null,"text":null,"redacted":true}]}`,
		`{"version":1,"turns":[{"role":"tool_call","text":"{}","agent":{"tool":"t","call_id":"c1","source":"s","authenticated":true}}]}`,
		`{"version":1,"turns":[{"role":"tool_call","text":"{}","agent":{"tool":"t","extra":1}}]}`,
		`{"version":1,"turns":[{"role":"user","text":"a","Text":"b"}]}`,
		`{"version":1,"turns":[{"role":"user","text":"a","text":"b"}]}`,
		`{"version":1,"turns":[{"role":"user","text":"a","redacted":"yes"}]}`,
		`{"version":1,"turns":[{"role":"user","text":"a"}],"Turns":[]}`,
		`{"version":1,"turns":[{"role":"user","text":"a"}],"turns":[]}`,
		`{"version":1,"\u0074urns":[{"role":"user","text":"a"}]}`,
		`{"version":1,"other":{"a":[1,2.5e3,-0,true,false,null,"s"]},"turns":[]}`,
		`{"version":1.5,"turns":[{"role":"user","text":"a"}]}`,
		`{"version":"1","turns":[{"role":"user","text":"a"}]}`,
		`{"version":1,"turns":null}`,
		`{"version":1,"turns":{}}`,
		`{"version":1,"turns":[null,null]}`,
		`{"version":1,"turns":[{"role":"user","text":"a"},{}]}`,
		`{"version":1,"turns":[{"role":"user","text":"a"}]}{}`,
		`{"version":1,"turns":[{"role":"user","text":"a"},]}`,
		`{"version":1,"turns":[{"role":"user","text":"a"}],"bounds":[01]}`,
		`{"version":1,"turns":[{"role":"user","text":"a"}],"selection":{"keys":[0],"upto":"x"}}`,
		`{"version":1,"turns":[{"role":"user","text":"a"}],"selection":{"keys":[0],"ends":[1],"upto":1,"recalls":[{"at":1,"keys":[0],"ends":[1]}],"dropped":"restored","called":"2023-05-20T09:30:00Z"}}`,
		`{"version":1,"bounds":[1e30,9223372036854775807,1.5,"2",null]}`,
		` { "version" : 1 , "turns" : [ { "role" : "user" , "text" : "spaced out" } ] , "bounds" : [ 0 ] } `,
		`{}`,
		`[]`,
		`null`,
		`{"version":1,"turns":[{"role":"user","text":"a"`,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[`,
	}
	for _, c := range append(cases, saves...) {
		readSaveMatchesJSON(t, []byte(c))
		// Every cut of a short case: each must be read as json.Unmarshal
		// reads it or left to it.
		if len(c) < 400 {
			for i := range len(c) {
				readSaveMatchesJSON(t, []byte(c[:i]))
			}
		}
	}
}

// FuzzReadSave holds the save reader to json.Unmarshal on any input.
func FuzzReadSave(f *testing.F) {
	f.Add([]byte(mustJSON(f, sampleMemory(f))))
	f.Add([]byte(`{"version":1,"turns":[{"role":"tool_call","text":"{\"a\":1}","agent":{"tool":"t","call_id":"c1"},"time":"2023-05-20T09:30:00+02:00"}],"bounds":[0],"selection":{"keys":[0],"ends":[1],"upto":1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		readSaveMatchesJSON(t, data)
	})
}

// TestPlainJSON8IsInStringOfEveryByte holds the eight-byte test to the
// byte table: every byte value at every position among plain ones, and
// random words.
func TestPlainJSON8IsInStringOfEveryByte(t *testing.T) {
	want := func(b []byte) bool {
		for _, c := range b {
			if !inString[c] {
				return false
			}
		}
		return true
	}
	b := []byte("abcdefgh")
	for pos := range 8 {
		for c := range 256 {
			copy(b, "abcdefgh")
			b[pos] = byte(c)
			if got := plainJSON8(binary.LittleEndian.Uint64(b)); got != want(b) {
				t.Fatalf("plainJSON8(%q) = %v", b, got)
			}
		}
	}
	var seed [8]byte
	for i := range 200_000 {
		for k := range b {
			seed[k] = byte(i*131 + k*i*i*7 + k)
			b[k] = seed[k]
		}
		if got := plainJSON8(binary.LittleEndian.Uint64(b)); got != want(b) {
			t.Fatalf("plainJSON8(%q) = %v", b, got)
		}
	}
}
