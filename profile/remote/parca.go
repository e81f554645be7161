package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/schedoctor/schedoctor/internal/httpfetch"
	"github.com/schedoctor/schedoctor/profile"
)

// Parca's server speaks gRPC, gRPC-web (Content-Type application/grpc-web)
// and, under /api, the grpc-gateway translation of each method's
// google.api.http rule (pkg/server/server.go of parca-dev/parca); it does
// not speak Connect. schedoctor uses the gateway: a GET whose query
// parameters are the request's fields by their proto names, answered with
// the response message as JSON (protojson: bytes in base64, enums by
// name), and errors as {"code":N,"message":"..."} with the HTTP status
// of the gRPC code. From proto/parca/query/v1alpha1/query.proto:
//
//	rpc Query(QueryRequest) returns (QueryResponse) { get: "/profiles/query" }
//	QueryRequest { Mode mode = 1 (MODE_MERGE = 2); MergeProfile merge = 3; ReportType report_type = 5 (REPORT_TYPE_PPROF = 1); ... }
//	MergeProfile { string query = 1; google.protobuf.Timestamp start = 2; google.protobuf.Timestamp end = 3; }
//	QueryResponse { oneof report { ...; bytes pprof = 6; ... } }   // a gzipped pprof profile
//	rpc Values(ValuesRequest) returns (ValuesResponse) { get: "/profiles/labels/{label_name}/values" }
//	ValuesRequest { string label_name = 1; repeated string match = 2; Timestamp start = 3; Timestamp end = 4; optional string profile_type = 5; }
//	ValuesResponse { repeated string label_values = 1; }

// parcaQuery is the whole Parca query of q: the profile type, then the
// selector. A selector that names its type already is used as it is.
func parcaQuery(q Query) (string, error) {
	sel := strings.TrimSpace(q.Selector)
	if !strings.HasPrefix(sel, "{") {
		if q.Type != "" {
			return "", fmt.Errorf("query %q names its profile type already; give the type once", q.Selector)
		}
		return sel, nil
	}
	typ, err := typeID(Parca, q.Type)
	if err != nil {
		return "", err
	}
	return typ + sel, nil
}

func (c *Client) parcaMerge(ctx context.Context, q Query) (*Profile, error) {
	query, err := parcaQuery(q)
	if err != nil {
		return nil, err
	}
	v := url.Values{}
	v.Set("mode", "MODE_MERGE")
	v.Set("report_type", "REPORT_TYPE_PPROF")
	v.Set("merge.query", query)
	v.Set("merge.start", q.From.UTC().Format(time.RFC3339Nano))
	v.Set("merge.end", q.Until.UTC().Format(time.RFC3339Nano))
	// base64 of the gzipped profile, which is no larger than the
	// profile: 4/3 of the limit and the JSON around it.
	limit := c.limits().MaxBytes/3*4 + 4<<10
	var answer struct {
		Pprof []byte `json:"pprof"`
	}
	name, err := c.gateway(ctx, "Query", "profiles/query", v, limit, &answer)
	if err != nil {
		var re *RPCError
		if errors.As(err, &re) && re.Code == "not_found" {
			return nil, ErrNoData // Parca's "No data found for the query"
		}
		return nil, err
	}
	if len(answer.Pprof) == 0 {
		return nil, fmt.Errorf("%s: the answer holds no pprof report (a server that does not know REPORT_TYPE_PPROF?)", name)
	}
	p, err := profile.Read(ctx, name, bytes.NewReader(answer.Pprof), c.limits())
	if err != nil {
		return nil, err
	}
	return &Profile{Profile: p, Method: "Query"}, nil
}

func (c *Client) parcaValues(ctx context.Context, label string, q Query) ([]string, error) {
	query, err := parcaQuery(q)
	if err != nil {
		return nil, err
	}
	typ := query[:strings.IndexByte(query, '{')]
	v := url.Values{}
	v.Add("match", query)
	v.Set("start", q.From.UTC().Format(time.RFC3339Nano))
	v.Set("end", q.Until.UTC().Format(time.RFC3339Nano))
	if typ != "" {
		v.Set("profile_type", typ)
	}
	var answer struct {
		LabelValues []string `json:"labelValues"`
	}
	_, err = c.gateway(ctx, "Values", "profiles/labels/"+url.PathEscape(label)+"/values", v, maxValuesBytes, &answer)
	return answer.LabelValues, err
}

// gateway GETs path under /api with the query parameters v and decodes the
// JSON answer into out; it returns the URL's name for errors.
func (c *Client) gateway(ctx context.Context, method, path string, v url.Values, limit int64, out any) (string, error) {
	u := c.base.JoinPath("api", path)
	u.RawQuery = v.Encode()
	h := http.Header{}
	h.Set("Accept", "application/json")
	c.auth(h)
	resp, err := httpfetch.Get(ctx, u, c.fetchOptions(limit, h))
	if err != nil {
		return "", c.rpcError(method, err)
	}
	defer resp.Close()
	name := resp.Name
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "application/json" {
		return name, fmt.Errorf("%s: answer's Content-Type is %q, not application/json: is this Parca's address (its HTTP port, 7070 by default)?",
			name, clean(truncate(resp.Header.Get("Content-Type"), 80)))
	}
	if err := resp.Err(json.NewDecoder(resp.Body).Decode(out)); err != nil {
		var fe *httpfetch.Error
		if errors.As(err, &fe) {
			return name, err
		}
		return name, fmt.Errorf("%s: answer is not the JSON of %s's response: %v", name, method, err)
	}
	return name, nil
}
