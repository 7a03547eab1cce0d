package record

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/evolvekit/evolve/agent"
)

// The encoder writes values as JSON that reads back into the same Go
// types, by the rules package replay's doc states, and refuses, with an
// error naming the type, what it could not read back. The same value
// always encodes to the same bytes, so a replay compares encodings as
// bytes.

// maxDepth bounds how deep values nest: deeper is taken for a cycle.
const maxDepth = 64

var (
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	byteType        = reflect.TypeFor[byte]()
	timeType        = reflect.TypeFor[time.Time]()
	agentPkg        = reflect.TypeFor[agent.Close]().PkgPath()
)

// unrecordableError says that a value of type t cannot be recorded, and why.
type unrecordableError struct {
	t   reflect.Type
	why string
}

func (e *unrecordableError) Error() string {
	return fmt.Sprintf("cannot record a %s: %s", e.t, e.why)
}

func unrecordable(t reflect.Type, format string, args ...any) error {
	return &unrecordableError{t: t, why: fmt.Sprintf(format, args...)}
}

// method is how a type encodes itself, if it does.
type method uint8

const (
	structural method = iota // by the codec's rules
	byJSON                   // by its MarshalJSON and UnmarshalJSON
	byText                   // by its MarshalText and UnmarshalText
)

// methodOf says how values of t encode.
func methodOf(t reflect.Type) method {
	if k := t.Kind(); k == reflect.Pointer || k == reflect.Interface {
		return structural
	}
	p := reflect.PointerTo(t)
	switch {
	case t.Implements(jsonMarshaler) && p.Implements(jsonUnmarshaler):
		return byJSON
	case t.Implements(textMarshaler) && p.Implements(textUnmarshaler):
		return byText
	}
	return structural
}

// typeInfo is what the encoder needs to know of a type, worked out once.
type typeInfo struct {
	t      reflect.Type
	method method
	elem   *typeInfo   // of a slice's, array's or pointer's elements, or a map's values
	key    *typeInfo   // of a map's keys
	fields []fieldInfo // of a struct
	bad    string      // why its values cannot be recorded; empty if they can
}

// fieldInfo is one field of a struct.
type fieldInfo struct {
	index int
	name  string
	key   []byte // the name, encoded, and a colon
	info  *typeInfo
}

var (
	infos  sync.Map   // reflect.Type to *typeInfo
	infoMu sync.Mutex // held while infos grows
)

// infoOf returns what the encoder needs to know of t.
func infoOf(t reflect.Type) *typeInfo {
	if ti, ok := infos.Load(t); ok {
		return ti.(*typeInfo)
	}
	infoMu.Lock()
	defer infoMu.Unlock()
	building := make(map[reflect.Type]*typeInfo)
	ti := build(t, building)
	for t, ti := range building {
		infos.Store(t, ti)
	}
	return ti
}

// build works out the typeInfo of t and of the types it holds, adding
// them to building: a type that holds itself (through a pointer) gets the
// typeInfo being built.
func build(t reflect.Type, building map[reflect.Type]*typeInfo) *typeInfo {
	if ti, ok := infos.Load(t); ok {
		return ti.(*typeInfo)
	}
	if ti, ok := building[t]; ok {
		return ti
	}
	ti := &typeInfo{t: t, method: methodOf(t)}
	building[t] = ti
	if ti.method != structural || t == timeType {
		return ti
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Pointer:
		ti.elem = build(t.Elem(), building)
	case reflect.Map:
		ti.key, ti.elem = build(t.Key(), building), build(t.Elem(), building)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			switch {
			case f.Name == "_":
				continue
			case !f.IsExported():
				ti.bad = fmt.Sprintf("its field %s is unexported (give the type MarshalJSON and UnmarshalJSON)", f.Name)
				return ti
			}
			var e encoder
			e.string(f.Name)
			ti.fields = append(ti.fields, fieldInfo{index: i, name: f.Name, key: append(e.buf, ':'), info: build(f.Type, building)})
		}
	case reflect.Chan, reflect.Func, reflect.UnsafePointer:
		ti.bad = fmt.Sprintf("a %s cannot be written down", t.Kind())
	}
	return ti
}

// typeName names t in a recording: with its package's path when it has
// one, as in "github.com/evolvekit/evolve/agent.Set[int]".
func typeName(t reflect.Type) string {
	if t.Name() != "" && t.PkgPath() != "" {
		return t.PkgPath() + "." + t.Name()
	}
	return t.String()
}

// kindOf names a message or effect type of package agent without its type
// arguments: "Done" for agent.Done[int].
func kindOf(t reflect.Type) string {
	name, _, _ := strings.Cut(t.Name(), "[")
	return name
}

// settled are the kinds of message whose type the agent's own types settle.
var settled = []string{"Input", "Done", "Close", "Tick", "Pull", "Query"}

// messageKey is what a recorded message is keyed by: its kind when the
// agent's types settle its type, else its type's full name (a Set's or an
// Event's, whose payload types the agent does not say).
func messageKey(t reflect.Type) string {
	if k := kindOf(t); t.PkgPath() == agentPkg && slices.Contains(settled, k) {
		return k
	}
	return typeName(t)
}

// encoder appends encodings to buf. It writes an instant as the
// nanoseconds after base, as time.Time's Sub gives them: measured on the
// monotonic clock for two readings of it, so that a replay, which builds
// its instants by adding them to the base, finds the same durations
// between them.
type encoder struct {
	buf   []byte
	depth int
	base  time.Time
}

// message encodes m, a message, as {key: {its fields but At}}.
func (e *encoder) message(m agent.Msg) error {
	v := reflect.ValueOf(m)
	return e.keyed(messageKey(v.Type()), v, "At")
}

// effects encodes fx as a list of {kind: {fields}}.
func (e *encoder) effects(fx []agent.Effect) error {
	e.buf = append(e.buf, '[')
	for i, f := range fx {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.effect(f); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, ']')
	return nil
}

// effect encodes f as {kind: {its fields}}; a Send, whose payload type
// is the agent's own, as {its type's full name: {its fields}}, so that
// two Sends of different payloads never encode alike.
func (e *encoder) effect(f agent.Effect) error {
	v := reflect.ValueOf(f)
	key := kindOf(v.Type())
	if key == "Send" {
		key = typeName(v.Type())
	}
	return e.keyed(key, v, "")
}

// keyed encodes v, a message or an effect, as {key: {its fields but
// skip}}.
func (e *encoder) keyed(key string, v reflect.Value, skip string) error {
	e.buf = append(e.buf, '{')
	e.string(key)
	e.buf = append(e.buf, ':')
	if err := e.fields(v, infoOf(v.Type()), skip); err != nil {
		return err
	}
	e.buf = append(e.buf, '}')
	return nil
}

// status encodes an agent's status: null when it gave none.
func (e *encoder) status(v any, ok bool) error {
	if !ok || v == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	return e.value(reflect.ValueOf(v))
}

// value encodes v.
func (e *encoder) value(v reflect.Value) error { return e.encode(v, infoOf(v.Type())) }

// encode encodes v, whose type ti describes.
func (e *encoder) encode(v reflect.Value, ti *typeInfo) error {
	if ti.bad != "" {
		return unrecordable(ti.t, "%s", ti.bad)
	}
	if e.depth++; e.depth > maxDepth {
		return unrecordable(ti.t, "it nests more than %d deep (a cycle?)", maxDepth)
	}
	err := e.kind(v, ti)
	e.depth--
	return err
}

// kind encodes v by its method, or else by its kind.
func (e *encoder) kind(v reflect.Value, ti *typeInfo) error {
	switch {
	case ti.t == timeType:
		e.instant(v.Interface().(time.Time))
		return nil
	case ti.method == byJSON:
		return e.marshaled(v)
	case ti.method == byText:
		b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			return unrecordable(ti.t, "%v", err)
		}
		e.string(string(b))
		return nil
	}
	switch ti.t.Kind() {
	case reflect.Bool:
		e.buf = strconv.AppendBool(e.buf, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		e.float(v.Float(), ti.t.Bits())
	case reflect.Complex64, reflect.Complex128:
		c, bits := v.Complex(), ti.t.Bits()/2
		e.buf = append(e.buf, '[')
		e.float(real(c), bits)
		e.buf = append(e.buf, ',')
		e.float(imag(c), bits)
		e.buf = append(e.buf, ']')
	case reflect.String:
		e.string(v.String())
	case reflect.Slice:
		return e.slice(v, ti)
	case reflect.Array:
		return e.list(v, ti.elem)
	case reflect.Map:
		return e.mapping(v, ti)
	case reflect.Struct:
		return e.fields(v, ti, "")
	case reflect.Pointer:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return e.encode(v.Elem(), ti.elem)
	case reflect.Interface:
		return e.boxed(v)
	}
	return nil
}

// instant encodes t as {"$at": nanoseconds after the base}, or, when that
// does not fit in a time.Duration (the zero time, say), as its text.
func (e *encoder) instant(t time.Time) {
	d := t.Sub(e.base)
	if d == math.MinInt64 || d == math.MaxInt64 {
		b, _ := t.MarshalText()
		e.string(string(b))
		return
	}
	e.buf = append(e.buf, `{"$at":`...)
	e.buf = strconv.AppendInt(e.buf, int64(d), 10)
	e.buf = append(e.buf, '}')
}

// marshaled encodes v with its MarshalJSON, compacted.
func (e *encoder) marshaled(v reflect.Value) error {
	b, err := v.Interface().(json.Marshaler).MarshalJSON()
	if err != nil {
		return unrecordable(v.Type(), "%v", err)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return unrecordable(v.Type(), "its MarshalJSON wrote no JSON: %v", err)
	}
	e.buf = append(e.buf, out.Bytes()...)
	return nil
}

func (e *encoder) float(f float64, bits int) {
	switch {
	case math.IsNaN(f):
		e.buf = append(e.buf, `"NaN"`...)
	case math.IsInf(f, 1):
		e.buf = append(e.buf, `"+Inf"`...)
	case math.IsInf(f, -1):
		e.buf = append(e.buf, `"-Inf"`...)
	default:
		e.buf = strconv.AppendFloat(e.buf, f, 'g', -1, bits)
	}
}

// string encodes s as a JSON string, or as {"$bytes": base64} when it is not
// UTF-8, which a JSON string cannot hold.
func (e *encoder) string(s string) {
	if !utf8.ValidString(s) {
		e.buf = append(e.buf, `{"$bytes":"`...)
		e.buf = base64.StdEncoding.AppendEncode(e.buf, []byte(s))
		e.buf = append(e.buf, `"}`...)
		return
	}
	const hex = "0123456789abcdef"
	e.buf = append(e.buf, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			e.buf = append(e.buf, '\\', c)
		case c == '\n':
			e.buf = append(e.buf, '\\', 'n')
		case c == '\t':
			e.buf = append(e.buf, '\\', 't')
		case c < 0x20:
			e.buf = append(e.buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			e.buf = append(e.buf, c)
		}
	}
	e.buf = append(e.buf, '"')
}

// slice encodes a slice: null when nil, base64 for bytes, else a list.
func (e *encoder) slice(v reflect.Value, ti *typeInfo) error {
	if v.IsNil() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	if ti.elem.t == byteType {
		e.buf = append(e.buf, '"')
		e.buf = base64.StdEncoding.AppendEncode(e.buf, v.Bytes())
		e.buf = append(e.buf, '"')
		return nil
	}
	return e.list(v, ti.elem)
}

// list encodes the elements of a slice or an array, of type elem.
func (e *encoder) list(v reflect.Value, elem *typeInfo) error {
	e.buf = append(e.buf, '[')
	for i := range v.Len() {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		if err := e.encode(v.Index(i), elem); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, ']')
	return nil
}

// mapping encodes a map as [[key, value], ...], ordered by the keys'
// encodings, so that equal maps encode alike.
func (e *encoder) mapping(v reflect.Value, ti *typeInfo) error {
	if v.IsNil() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	type pair struct{ k, v []byte }
	pairs := make([]pair, 0, v.Len())
	sub := encoder{depth: e.depth, base: e.base}
	for it := v.MapRange(); it.Next(); {
		sub.buf = nil
		if err := sub.encode(it.Key(), ti.key); err != nil {
			return err
		}
		k := sub.buf
		sub.buf = nil
		if err := sub.encode(it.Value(), ti.elem); err != nil {
			return err
		}
		pairs = append(pairs, pair{k, sub.buf})
	}
	slices.SortFunc(pairs, func(a, b pair) int { return bytes.Compare(a.k, b.k) })
	e.buf = append(e.buf, '[')
	for i, p := range pairs {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = append(e.buf, '[')
		e.buf = append(e.buf, p.k...)
		e.buf = append(e.buf, ',')
		e.buf = append(e.buf, p.v...)
		e.buf = append(e.buf, ']')
	}
	e.buf = append(e.buf, ']')
	return nil
}

// fields encodes a struct as an object of its fields, in order, leaving
// out the one named skip.
func (e *encoder) fields(v reflect.Value, ti *typeInfo, skip string) error {
	if ti.bad != "" {
		return unrecordable(ti.t, "%s", ti.bad)
	}
	e.buf = append(e.buf, '{')
	first := true
	for _, f := range ti.fields {
		if f.name == skip {
			continue
		}
		if !first {
			e.buf = append(e.buf, ',')
		}
		first = false
		e.buf = append(e.buf, f.key...)
		if err := e.encode(v.Field(f.index), f.info); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

// boxed encodes the value in an interface: null, an error, a value a
// replay kept as it was recorded, or {"$type": name, "$value": value}.
func (e *encoder) boxed(v reflect.Value) error {
	if v.IsNil() {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	d := v.Elem()
	if d.Kind() != reflect.Pointer || !d.IsNil() {
		switch x := d.Interface().(type) {
		case *opaque:
			e.buf = append(e.buf, x.raw...)
			return nil
		case error:
			return e.error(x)
		}
	}
	e.buf = append(e.buf, `{"$type":`...)
	e.string(typeName(d.Type()))
	e.buf = append(e.buf, `,"$value":`...)
	if err := e.value(d); err != nil {
		return err
	}
	e.buf = append(e.buf, '}')
	return nil
}

// error encodes err as its text and what evolve functions look for in
// errors: the sentinels errors.Is finds in it, and the
// *agent.RetryAfterError and *agent.PanicError errors.As finds.
func (e *encoder) error(err error) error {
	if e.depth++; e.depth > maxDepth {
		return unrecordable(reflect.TypeOf(err), "it wraps more than %d deep (a cycle?)", maxDepth)
	}
	defer func() { e.depth-- }()
	e.buf = append(e.buf, `{"$error":`...)
	e.string(err.Error())
	first := true
	for _, s := range sentinels {
		if !errors.Is(err, s.err) {
			continue
		}
		if first {
			e.buf = append(e.buf, `,"is":[`...)
		} else {
			e.buf = append(e.buf, ',')
		}
		first = false
		e.string(s.name)
	}
	if !first {
		e.buf = append(e.buf, ']')
	}
	if after := (*agent.RetryAfterError)(nil); errors.As(err, &after) && after != nil {
		e.buf = append(e.buf, `,"retryAfter":{"after":`...)
		e.buf = strconv.AppendInt(e.buf, int64(after.After), 10)
		e.buf = append(e.buf, `,"err":`...)
		if err := e.value(reflect.ValueOf(&after.Err).Elem()); err != nil {
			return err
		}
		e.buf = append(e.buf, '}')
	}
	if p := (*agent.PanicError)(nil); errors.As(err, &p) && p != nil {
		e.buf = append(e.buf, `,"panic":{"value":`...)
		if err := e.value(reflect.ValueOf(&p.Value).Elem()); err != nil {
			return err
		}
		e.buf = append(e.buf, `,"stack":`...)
		e.string(string(p.Stack))
		e.buf = append(e.buf, '}')
	}
	e.buf = append(e.buf, '}')
	return nil
}
