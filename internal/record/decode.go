package record

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/pace"
)

// Decoder reads recorded messages back into the message types of one
// agent. Build one with [NewDecoder]; it is safe for concurrent use.
type Decoder struct {
	kinds map[string]reflect.Type // message types by their recorded key
	d     decoder
}

// NewDecoder returns the Decoder of the messages an agent takes, read
// from a recording whose base instant is base: those of package agent, and
// takes, the agent's own (core.Machine's Messages: its Input and Done, and
// the Set and Event messages whose payload types are its own).
func NewDecoder(base time.Time, takes []agent.Msg) *Decoder {
	dec := &Decoder{kinds: make(map[string]reflect.Type), d: decoder{base: base}}
	for _, x := range slices.Concat(common, takes) {
		if t := reflect.TypeOf(x); t != nil {
			dec.kinds[messageKey(t)] = t
		}
	}
	return dec
}

// common are the messages whose types every agent shares: those of
// package agent, and those of a chain's pace, which the runtime sends to
// the agents that keep or spend one.
var common = []agent.Msg{agent.Close{}, agent.Tick{}, agent.Pull{}, agent.Query{},
	agent.Event[pace.Reservation]{}, agent.Event[pace.Pass]{}, agent.Event[pace.Paced]{}}

// Message reads a recorded message, stamped with at.
func (dec *Decoder) Message(raw []byte, at time.Time) (agent.Msg, error) {
	var one map[string]json.RawMessage
	if err := json.Unmarshal(raw, &one); err != nil || len(one) != 1 {
		return nil, fmt.Errorf("a message must be an object of one key, got %.80s", raw)
	}
	for key, fields := range one {
		t, ok := dec.kinds[key]
		if !ok {
			return nil, fmt.Errorf("a message of type %s, which this agent does not take (an agent names the Set and Event messages it takes: see spawn.Spec.Takes)", key)
		}
		v := reflect.New(t).Elem()
		if err := dec.d.fields(fields, v, "At"); err != nil {
			return nil, fmt.Errorf("decoding a %s: %w", key, err)
		}
		v.FieldByName("At").Set(reflect.ValueOf(at))
		return v.Interface().(agent.Msg), nil
	}
	return nil, errors.New("a message must be an object of one key")
}

// decoder reads values back; base is the recording's base instant, which
// instants are recorded after.
type decoder struct {
	base time.Time
}

// value decodes raw into v, which must be settable.
func (d decoder) value(raw []byte, v reflect.Value) error {
	t := v.Type()
	if t == timeType {
		return d.instant(raw, v)
	}
	switch infoOf(t).method {
	case byJSON:
		return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(raw)
	case byText:
		var s string
		if err := d.value(raw, reflect.ValueOf(&s).Elem()); err != nil {
			return err
		}
		return v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
	}
	null := bytes.Equal(raw, []byte("null"))
	switch t.Kind() {
	case reflect.Bool:
		b, err := strconv.ParseBool(string(raw))
		v.SetBool(b)
		return wrong(err, raw, t)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(string(raw), 10, t.Bits())
		v.SetInt(n)
		return wrong(err, raw, t)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, err := strconv.ParseUint(string(raw), 10, t.Bits())
		v.SetUint(n)
		return wrong(err, raw, t)
	case reflect.Float32, reflect.Float64:
		f, err := decodeFloat(raw, t.Bits())
		v.SetFloat(f)
		return wrong(err, raw, t)
	case reflect.Complex64, reflect.Complex128:
		return d.complex(raw, v)
	case reflect.String:
		return d.string(raw, v)
	case reflect.Slice:
		return d.slice(raw, v, null)
	case reflect.Array:
		return d.list(raw, v, false)
	case reflect.Map:
		return d.mapping(raw, v, null)
	case reflect.Struct:
		return d.fields(raw, v, "")
	case reflect.Pointer:
		if null {
			v.SetZero()
			return nil
		}
		p := reflect.New(t.Elem())
		if err := d.value(raw, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Interface:
		return d.boxed(raw, v, null)
	}
	return fmt.Errorf("cannot read back a %s", t)
}

// instant reads back a time.Time: {"$at": nanoseconds after the base},
// or its text.
func (d decoder) instant(raw []byte, v reflect.Value) error {
	var at struct {
		At *int64 `json:"$at"`
	}
	if len(raw) > 0 && raw[0] == '{' {
		if err := json.Unmarshal(raw, &at); err != nil || at.At == nil {
			return wrong(err, raw, timeType)
		}
		v.Set(reflect.ValueOf(d.base.Add(time.Duration(*at.At))))
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return wrong(err, raw, timeType)
	}
	return v.Addr().Interface().(*time.Time).UnmarshalText([]byte(s))
}

// wrong describes err, a failure to read raw as a t.
func wrong(err error, raw []byte, t reflect.Type) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("cannot read %.40s as a %s", raw, t)
}

func decodeFloat(raw []byte, bits int) (float64, error) {
	switch string(raw) {
	case `"NaN"`:
		return math.NaN(), nil
	case `"+Inf"`:
		return math.Inf(1), nil
	case `"-Inf"`:
		return math.Inf(-1), nil
	}
	return strconv.ParseFloat(string(raw), bits)
}

func (d decoder) complex(raw []byte, v reflect.Value) error {
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil || len(parts) != 2 {
		return wrong(fmt.Errorf("not a pair"), raw, v.Type())
	}
	bits := v.Type().Bits() / 2
	re, err := decodeFloat(parts[0], bits)
	if err != nil {
		return wrong(err, raw, v.Type())
	}
	im, err := decodeFloat(parts[1], bits)
	v.SetComplex(complex(re, im))
	return wrong(err, raw, v.Type())
}

func (d decoder) string(raw []byte, v reflect.Value) error {
	if len(raw) > 0 && raw[0] == '{' {
		var b struct {
			Bytes []byte `json:"$bytes"`
		}
		if err := json.Unmarshal(raw, &b); err != nil {
			return wrong(err, raw, v.Type())
		}
		v.SetString(string(b.Bytes))
		return nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	v.SetString(s)
	return wrong(err, raw, v.Type())
}

func (d decoder) slice(raw []byte, v reflect.Value, null bool) error {
	switch {
	case null:
		v.SetZero()
		return nil
	case v.Type().Elem() == byteType:
		var b []byte
		if err := json.Unmarshal(raw, &b); err != nil {
			return wrong(err, raw, v.Type())
		}
		v.SetBytes(b)
		return nil
	}
	return d.list(raw, v, true)
}

// list decodes a list into an array, or into a new slice.
func (d decoder) list(raw []byte, v reflect.Value, grow bool) error {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return wrong(err, raw, v.Type())
	}
	if grow {
		v.Set(reflect.MakeSlice(v.Type(), len(items), len(items)))
	} else if len(items) != v.Len() {
		return fmt.Errorf("%d values for a %s", len(items), v.Type())
	}
	for i, item := range items {
		if err := d.value(item, v.Index(i)); err != nil {
			return err
		}
	}
	return nil
}

func (d decoder) mapping(raw []byte, v reflect.Value, null bool) error {
	if null {
		v.SetZero()
		return nil
	}
	var pairs [][2]json.RawMessage
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return wrong(err, raw, v.Type())
	}
	t := v.Type()
	m := reflect.MakeMapWithSize(t, len(pairs))
	for _, p := range pairs {
		k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
		if err := d.value(p[0], k); err != nil {
			return err
		}
		if err := d.value(p[1], e); err != nil {
			return err
		}
		m.SetMapIndex(k, e)
	}
	v.Set(m)
	return nil
}

// fields decodes an object into the fields of a struct, but the one
// named skip. The object must have every field and no other: a type that
// changed since the recording does not read it.
func (d decoder) fields(raw []byte, v reflect.Value, skip string) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return wrong(err, raw, v.Type())
	}
	t := v.Type()
	n := 0
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name == skip || f.Name == "_" {
			continue
		}
		fr, ok := fields[f.Name]
		if !ok {
			return fmt.Errorf("the recorded %s has no field %s", t, f.Name)
		}
		if !f.IsExported() {
			return fmt.Errorf("cannot read back a %s: its field %s is unexported", t, f.Name)
		}
		if err := d.value(fr, v.Field(i)); err != nil {
			return err
		}
		n++
	}
	if n != len(fields) {
		return fmt.Errorf("the recorded %s has fields a %s has not", t, t)
	}
	return nil
}

// boxed decodes a value in an interface: an error, a value of a
// type it knows by name, or, for one it does not, an opaque value that
// encodes as it was recorded.
func (d decoder) boxed(raw []byte, v reflect.Value, null bool) error {
	if null {
		v.SetZero()
		return nil
	}
	var box struct {
		Error json.RawMessage `json:"$error"`
		Type  string          `json:"$type"`
		Value json.RawMessage `json:"$value"`
	}
	if err := json.Unmarshal(raw, &box); err != nil {
		return wrong(err, raw, v.Type())
	}
	var x reflect.Value
	switch t, known := boxable[box.Type]; {
	case box.Error != nil:
		err, derr := d.error(raw)
		if derr != nil {
			return derr
		}
		x = reflect.ValueOf(err)
	case known:
		x = reflect.New(t).Elem()
		if err := d.value(box.Value, x); err != nil {
			return err
		}
	default:
		x = reflect.ValueOf(&opaque{raw: bytes.Clone(raw)})
	}
	if !x.Type().AssignableTo(v.Type()) {
		return fmt.Errorf("cannot read back a %s as a %s", box.Type, v.Type())
	}
	v.Set(x)
	return nil
}

// boxable are the types a value in an interface is read back as, by
// name; a value of any other type is kept opaque.
var boxable = map[string]reflect.Type{}

func init() {
	for _, t := range []reflect.Type{
		reflect.TypeFor[bool](), reflect.TypeFor[string](), reflect.TypeFor[[]byte](),
		reflect.TypeFor[int](), reflect.TypeFor[int8](), reflect.TypeFor[int16](), reflect.TypeFor[int32](), reflect.TypeFor[int64](),
		reflect.TypeFor[uint](), reflect.TypeFor[uint8](), reflect.TypeFor[uint16](), reflect.TypeFor[uint32](), reflect.TypeFor[uint64](),
		reflect.TypeFor[uintptr](), reflect.TypeFor[float32](), reflect.TypeFor[float64](),
		reflect.TypeFor[complex64](), reflect.TypeFor[complex128](),
		reflect.TypeFor[time.Time](), reflect.TypeFor[time.Duration](),
	} {
		boxable[typeName(t)] = t
	}
}

// error reads back a recorded error as a *recordedError.
func (d decoder) error(raw []byte) (error, error) {
	var rec struct {
		Text       json.RawMessage `json:"$error"`
		Is         []string        `json:"is"`
		RetryAfter *struct {
			After int64           `json:"after"`
			Err   json.RawMessage `json:"err"`
		} `json:"retryAfter"`
		Panic *struct {
			Value json.RawMessage `json:"value"`
			Stack json.RawMessage `json:"stack"`
		} `json:"panic"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, fmt.Errorf("cannot read back an error from %.80s", raw)
	}
	e := &recordedError{}
	if err := d.value(rec.Text, reflect.ValueOf(&e.text).Elem()); err != nil {
		return nil, err
	}
	for _, name := range rec.Is {
		found := false
		for _, s := range sentinels {
			if s.name == name {
				e.is, found = append(e.is, s.err), true
			}
		}
		if !found {
			return nil, fmt.Errorf("an error matching %s, which a replay does not know", name)
		}
	}
	if r := rec.RetryAfter; r != nil {
		e.after = &agent.RetryAfterError{After: time.Duration(r.After)}
		if err := d.value(r.Err, reflect.ValueOf(&e.after.Err).Elem()); err != nil {
			return nil, err
		}
	}
	if p := rec.Panic; p != nil {
		e.panic = &agent.PanicError{}
		var stack string
		if err := d.value(p.Value, reflect.ValueOf(&e.panic.Value).Elem()); err != nil {
			return nil, err
		}
		if err := d.value(p.Stack, reflect.ValueOf(&stack).Elem()); err != nil {
			return nil, err
		}
		e.panic.Stack = []byte(stack)
	}
	return e, nil
}
