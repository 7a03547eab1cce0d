package record

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/pace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type point struct {
	X, Y int
	Tag  string
}

type order struct {
	ID     uint64
	Points []point
	Best   *point
	Counts map[string]int
	Sets   map[int][]string
	Raw    []byte
	Grid   [2][2]float32
	Inner
}

// Inner is embedded in order.
type Inner struct{ Z int }

// marshaled encodes itself with MarshalJSON, as its text.
type marshaled struct{ n int }

func (m marshaled) MarshalJSON() ([]byte, error) { return fmt.Appendf(nil, `"n=%d"`, m.n), nil }
func (m *marshaled) UnmarshalJSON(b []byte) error {
	_, err := fmt.Sscanf(string(b), `"n=%d"`, &m.n)
	return err
}

// roundTrip encodes v, decodes it into a new value of its type, and
// returns the new value and both encodings.
func roundTrip[T any](t *testing.T, base time.Time, v T) (T, string, string) {
	t.Helper()
	e := encoder{base: base}
	require.NoError(t, e.value(reflect.ValueOf(&v).Elem()))
	var back T
	require.NoError(t, decoder{base: base}.value(e.buf, reflect.ValueOf(&back).Elem()), "decoding %s", e.buf)
	again := encoder{base: base}
	require.NoError(t, again.value(reflect.ValueOf(&back).Elem()))
	return back, string(e.buf), string(again.buf)
}

// Values read back from their encoding are the values recorded, and
// encode to the same bytes again.
func TestRecordedValuesReadBackAsTheyWere(t *testing.T) {
	base := time.Now()
	check(t, base, "ints", []int64{0, -1, math.MinInt64, math.MaxInt64})
	check(t, base, "uints", []uint64{0, math.MaxUint64})
	check(t, base, "floats", []float64{0.1, 1e300, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), -2.5})
	check(t, base, "float32", []float32{0.1, math.MaxFloat32})
	check(t, base, "complex", complex(1.5, -2))
	check(t, base, "strings", []string{"", `quote " and \ back`, "line\nbreak\ttab\x01", "héllo ✓", "\xff\xfe not UTF-8"})
	check(t, base, "bytes", [][]byte{nil, {}, {0, 1, 255}})
	check(t, base, "nil and empty slices", [][]int{nil, {}, {1}})
	check(t, base, "nil map", map[string]int(nil))
	check(t, base, "struct", order{
		ID: 7, Points: []point{{1, 2, "a"}, {3, 4, "b"}}, Best: &point{5, 6, "c"},
		Counts: map[string]int{"z": 1, "a": 2, "m": 3}, Sets: map[int][]string{2: {"x"}, 1: nil},
		Raw: []byte("raw"), Grid: [2][2]float32{{1, 2}, {3, 4}}, Inner: Inner{Z: 9},
	})
	check(t, base, "text marshaler", netip.MustParseAddr("10.0.0.1"))
	check(t, base, "json marshaler", []marshaled{{1}, {22}})
	check(t, base, "duration", 3*time.Second)
	check(t, base, "zero time", time.Time{})
	check(t, base, "values in an interface", []any{nil, 3, "s", 2.5, true, []byte("b"), 4 * time.Millisecond})

	nan, _, _ := roundTrip(t, base, math.NaN())
	assert.True(t, math.IsNaN(nan))
	negZero, _, _ := roundTrip(t, base, math.Copysign(0, -1))
	assert.True(t, math.Signbit(negZero))
}

// An instant is recorded as the time after the base, as Sub measures it:
// read back, it is as far from the base, and from another instant, as it
// was, whether it had a monotonic clock reading or not.
func TestInstantsKeepTheirDistancesFromTheBase(t *testing.T) {
	base := time.Now()
	later := base.Add(1500 * time.Microsecond)
	parsed := time.Date(2024, 3, 1, 12, 0, 0, 5, time.UTC)
	replayBase := time.Unix(0, base.UnixNano())
	for _, at := range []time.Time{base, later, parsed} {
		e := encoder{base: base}
		e.instant(at)
		var back time.Time
		require.NoError(t, decoder{base: replayBase}.value(e.buf, reflect.ValueOf(&back).Elem()))
		assert.Equal(t, at.Sub(base), back.Sub(replayBase), "from %s", e.buf)
	}
}

// A value in an interface whose type a replay cannot name reads back as
// one that encodes as it was recorded.
func TestAValueOfAnUnknownTypeInAnInterfaceEncodesAsRecorded(t *testing.T) {
	v := []any{point{1, 2, "p"}, &point{3, 4, "q"}, map[string]point{"k": {}}}
	back, first, again := roundTrip(t, time.Now(), v)
	assert.Equal(t, first, again)
	assert.Contains(t, first, `"$type":"github.com/evolvekit/evolve/internal/record.point"`)
	require.Len(t, back, 3)
	assert.IsType(t, &opaque{}, back[0])
}

// check checks that v reads back as it was, and encodes as it did.
func check[T any](t *testing.T, base time.Time, name string, v T) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		back, first, again := roundTrip(t, base, v)
		assert.Equal(t, first, again)
		assert.Equal(t, v, back, "from %s", first)
	})
}

var errPermanent = errors.New("permanent")

// An error reads back with its text, and with what evolve functions look
// for in it: errors.Is finds the same sentinels in it, errors.As the same
// retry-after wait and panic. It matches no other error.
func TestARecordedErrorMatchesWhatTheOriginalMatched(t *testing.T) {
	panicked := &agent.PanicError{Value: fmt.Errorf("boom: %w", context.DeadlineExceeded), Stack: []byte("goroutine 1 [running]:\nmain.work()")}
	errs := []error{
		nil,
		errPermanent,
		fmt.Errorf("item 3: %w", context.Canceled),
		agent.RetryAfter(fmt.Errorf("busy: %w", errPermanent), 250*time.Millisecond),
		fmt.Errorf("wrapped: %w", panicked),
		&agent.PanicError{Value: "plain", Stack: []byte("stack")},
		errors.Join(agent.ErrClosed, agent.RetryAfter(context.Canceled, time.Second)),
	}
	base := time.Now()
	for _, err := range errs {
		back, first, again := roundTrip(t, base, err)
		assert.Equal(t, first, again)
		if err == nil {
			assert.NoError(t, back)
			continue
		}
		assert.EqualError(t, back, err.Error())
		for _, s := range sentinels {
			assert.Equal(t, errors.Is(err, s.err), errors.Is(back, s.err), "%v is %s", err, s.name)
		}
		assert.False(t, errors.Is(back, errPermanent), "an error of the user's own is not matched")

		var after, afterBack *agent.RetryAfterError
		require.Equal(t, errors.As(err, &after), errors.As(back, &afterBack))
		if after != nil {
			assert.Equal(t, after.After, afterBack.After)
			assert.EqualError(t, afterBack.Err, after.Err.Error())
			assert.Equal(t, errors.Is(after.Err, context.Canceled), errors.Is(afterBack.Err, context.Canceled))
		}
		var p, pBack *agent.PanicError
		require.Equal(t, errors.As(err, &p), errors.As(back, &pBack))
		if p != nil {
			assert.Equal(t, p.Stack, pBack.Stack)
			assert.Equal(t, fmt.Sprint(p.Value), fmt.Sprint(pBack.Value))
		}
	}
}

type secret struct {
	Shown  int
	hidden int
}

type loop struct {
	Next *loop
}

// What cannot be read back is refused, with an error naming its type.
func TestWhatCannotBeRecordedIsRefusedNamingItsType(t *testing.T) {
	l := &loop{}
	l.Next = l
	for v, want := range map[any]string{
		&secret{hidden: 1}:                 "record.secret: its field hidden is unexported",
		&struct{ C chan int }{}:            "chan int",
		&struct{ F func() }{}:              "func()",
		&l:                                 "nests more than 64 deep",
		&[]any{make(chan int)}:             "chan int",
		&map[string]func(){"x": func() {}}: "func()",
	} {
		var e encoder
		err := e.value(reflect.ValueOf(v).Elem())
		require.Error(t, err)
		assert.Contains(t, err.Error(), want)
	}
}

// Messages read back into the agent's own types, and into those of the
// Set and Event messages it takes; an unknown one is refused.
func TestADecoderReadsMessagesIntoTheAgentsTypes(t *testing.T) {
	base := time.Now()
	at := base.Add(time.Second)
	dec := NewDecoder(base, []agent.Msg{agent.Input[string]{}, agent.Done[point]{}, agent.Set[time.Duration]{}, nil})
	for _, msg := range []agent.Msg{
		agent.Input[string]{At: at, Items: []string{"a", "b"}},
		agent.Done[point]{At: at, ID: 4, Result: point{1, 2, "r"}, Err: context.Canceled},
		agent.Set[time.Duration]{At: at, Value: time.Minute},
		agent.Event[pace.Reservation]{At: at, Value: pace.Reservation{N: 2, Last: true}},
		agent.Tick{At: at, Tag: 9},
	} {
		e := encoder{base: base}
		require.NoError(t, e.message(msg))
		back, err := dec.Message(e.buf, at)
		require.NoError(t, err, "%s", e.buf)
		again := encoder{base: base}
		require.NoError(t, again.message(back))
		assert.Equal(t, string(e.buf), string(again.buf))
		assert.IsType(t, msg, back)
		assert.Equal(t, at, reflect.ValueOf(back).FieldByName("At").Interface())
	}
	e := encoder{base: base}
	require.NoError(t, e.message(agent.Set[int]{Value: 3}))
	_, err := dec.Message(e.buf, at)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "agent.Set[int]"), err.Error())
}

func TestSendsOfDifferentPayloadsEncodeApart(t *testing.T) {
	base := time.Unix(0, 0)
	reserve, err := EncodeEffects(base, []agent.Effect{pace.Out(pace.Reserve{N: 1})})
	require.NoError(t, err)
	grant, err := EncodeEffects(base, []agent.Effect{pace.Out(pace.Grant{N: 1})})
	require.NoError(t, err)
	assert.NotEqual(t, string(reserve), string(grant), "a replay that granted where it reserved diverges")
	assert.Contains(t, string(grant), "internal/pace.Grant]")
}
