package report

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// WalkLimits bound a Walk: summaries nest (check's holds the profile's and
// the trace's, a demo's one per program) and may hold long lists.
type WalkLimits struct {
	Depth int  // levels of fields, elements and map values below the summary
	Elems int  // elements of one slice or array visited; 0: all
	Maps  bool // also visit map values, in key order
}

// Walk offers the summary, then its exported fields, slice and array
// elements (and map values with lim.Maps), depth first, to visit, which
// says whether it took the value (its insides are then not walked) and
// whether to stop. Each pointer is followed once; nil values are skipped.
// The renderers find the parts they draw with it (Thin; htmlreport's
// pictures).
func Walk(summary any, lim WalkLimits, visit func(v any) (took, stop bool)) {
	seen := map[uintptr]bool{}
	stopped := false
	var walk func(v reflect.Value, depth int)
	walk = func(v reflect.Value, depth int) {
		if stopped || !v.IsValid() || depth > lim.Depth {
			return
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
			if v.IsNil() {
				return
			}
		}
		if v.Kind() == reflect.Pointer {
			if seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
		}
		if v.CanInterface() {
			took, stop := visit(v.Interface())
			stopped = stop
			if took || stop {
				return
			}
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			walk(v.Elem(), depth)
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i), depth+1)
				}
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len() && (lim.Elems == 0 || i < lim.Elems); i++ {
				walk(v.Index(i), depth+1)
			}
		case reflect.Map:
			if !lim.Maps {
				return
			}
			// In key order, so that the report is the same every time.
			keys := v.MapKeys()
			slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
			for _, k := range keys {
				walk(v.MapIndex(k), depth+1)
			}
		}
	}
	walk(reflect.ValueOf(summary), 0)
}
