// Package fields writes any status as the fields of one zerolog object, by
// one rule for every agent, so that LogStatus reads the same whatever the
// agent, an agent of one's own included, and no status type needs a
// marshaler of its own.
//
// The rule: each exported field of a struct is a field named in
// snake_case (InFlight is in_flight); an embedded struct's fields stand
// beside the others, as Go promotes them; a nested struct is an object, a
// slice of structs an array of objects, a map a dict in the order of its
// keys. A time.Duration is written as zerolog writes durations, a
// time.Time as a time unless it is zero, an error as its text unless nil,
// a value with a String method (other than a struct) as that text. An
// [agent.Credit] (a Load's Demand) is written as its number, or as
// "unbounded" when no downstream throttles it. A status that marshals itself
// (zerolog.LogObjectMarshaler) is written its own way.
package fields

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/evolvekit/evolve/agent"
	"github.com/rs/zerolog"
)

// Object returns v as a zerolog object: v itself when it marshals itself,
// else v written by the rule of the package doc.
func Object(v any) zerolog.LogObjectMarshaler {
	if m, ok := v.(zerolog.LogObjectMarshaler); ok {
		return m
	}
	return object{reflect.ValueOf(v)}
}

// object writes a struct value's fields.
type object struct{ v reflect.Value }

// MarshalZerologObject implements zerolog.LogObjectMarshaler.
func (o object) MarshalZerologObject(e *zerolog.Event) {
	v := indirect(o.v)
	if !v.IsValid() {
		return
	}
	if v.Kind() != reflect.Struct {
		field(e, "value", v)
		return
	}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		switch {
		case !f.IsExported():
		case f.Anonymous && indirect(v.Field(i)).Kind() == reflect.Struct:
			object{v.Field(i)}.MarshalZerologObject(e)
		default:
			field(e, snake(f.Name), v.Field(i))
		}
	}
}

// array writes a slice's elements.
type array struct{ v reflect.Value }

// MarshalZerologArray implements zerolog.LogArrayMarshaler.
func (a array) MarshalZerologArray(arr *zerolog.Array) {
	for i := range a.v.Len() {
		arr.Object(Object(a.v.Index(i).Interface()))
	}
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	timeType     = reflect.TypeFor[time.Time]()
	errorType    = reflect.TypeFor[error]()
	stringerType = reflect.TypeFor[fmt.Stringer]()
	marshalType  = reflect.TypeFor[zerolog.LogObjectMarshaler]()
)

// field writes v under key; a nil pointer, interface or map is left out.
func field(e *zerolog.Event, key string, v reflect.Value) {
	if k := v.Kind(); k == reflect.Interface || k == reflect.Pointer || k == reflect.Map {
		if v.IsNil() {
			return
		}
	}
	t := v.Type()
	switch {
	case t == durationType:
		e.Dur(key, time.Duration(v.Int()))
		return
	case t == timeType:
		if at := v.Interface().(time.Time); !at.IsZero() {
			e.Time(key, at)
		}
		return
	case t.Implements(errorType):
		e.AnErr(key, v.Interface().(error))
		return
	case t.Implements(marshalType):
		e.Object(key, v.Interface().(zerolog.LogObjectMarshaler))
		return
	case t == creditType:
		credit(e, key, v.Interface().(agent.Credit))
		return
	case t.Kind() != reflect.Struct && t.Implements(stringerType):
		e.Str(key, v.Interface().(fmt.Stringer).String())
		return
	}
	kind(e, key, v)
}

// kind writes v under key by its kind.
func kind(e *zerolog.Event, key string, v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		e.Bool(key, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.Int64(key, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.Uint64(key, v.Uint())
	case reflect.Float32, reflect.Float64:
		e.Float64(key, v.Float())
	case reflect.String:
		e.Str(key, v.String())
	case reflect.Interface, reflect.Pointer:
		field(e, key, v.Elem())
	case reflect.Struct:
		e.Object(key, object{v})
	case reflect.Slice, reflect.Array:
		list(e, key, v)
	case reflect.Map:
		e.Dict(key, dict(v))
	default:
		e.Interface(key, v.Interface())
	}
}

// list writes a slice or an array under key.
func list(e *zerolog.Event, key string, v reflect.Value) {
	switch elem := v.Type().Elem(); {
	case elem.Kind() == reflect.String:
		strs := make([]string, v.Len())
		for i := range strs {
			strs[i] = v.Index(i).String()
		}
		e.Strs(key, strs)
	case indirectType(elem).Kind() == reflect.Struct:
		e.Array(key, array{v})
	default:
		e.Interface(key, v.Interface())
	}
}

// dict returns a map's entries as a zerolog dict, in the order of their
// keys' texts.
func dict(v reflect.Value) *zerolog.Event {
	keys := v.MapKeys()
	text := func(k reflect.Value) string { return fmt.Sprint(k.Interface()) }
	slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(text(a), text(b)) })
	d := zerolog.Dict()
	for _, k := range keys {
		field(d, text(k), v.MapIndex(k))
	}
	return d
}

// snake returns a Go field name in snake_case: InFlight is in_flight,
// MaxWait max_wait, ID id.
func snake(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			prevLower := i > 0 && !unicode.IsUpper(rs[i-1])
			nextLower := i > 0 && i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || nextLower {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// indirect follows pointers and interfaces to the value they hold; the
// zero Value for a nil one.
func indirect(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) {
		if v.IsNil() {
			return reflect.Value{}
		}
		v = v.Elem()
	}
	return v
}

// indirectType follows pointer types to the type they point to.
func indirectType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// creditType is the type of a demand, which logs as a number or as
// "unbounded".
var creditType = reflect.TypeFor[agent.Credit]()

// credit writes c under key: its number, or "unbounded".
func credit(e *zerolog.Event, key string, c agent.Credit) {
	if c.IsUnbounded() {
		e.Str(key, c.String())
		return
	}
	e.Int(key, int(c))
}
