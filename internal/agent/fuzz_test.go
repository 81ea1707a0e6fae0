package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hashicorp/nomad/api"

	"github.com/drover-project/drover/internal/agent/apiconv"
	"github.com/drover-project/drover/internal/server"
)

// FuzzDecodeBody feeds HTTP request bodies to the decoder every handler
// uses, as the body kinds the API accepts (the first byte picks one), and
// a decoded job through the conversion, defaults and validation the
// server runs. Nothing may panic; a body that decodes must be usable.
func FuzzDecodeBody(f *testing.F) {
	job, _ := json.Marshal(&api.JobRegisterRequest{Job: testAPIJob("web")})
	f.Add(append([]byte{0}, job...))
	f.Add(append([]byte{1}, `{"DrainSpec":{"Deadline":60000000000},"MarkEligible":false,"Meta":{"a":"b"}}`...))
	f.Add(append([]byte{2}, `{"Eligibility":"ineligible"}`...))
	f.Add(append([]byte{3}, `{"EvalIDs":["a","b"]}`...))
	f.Add(append([]byte{4}, `{"Name":"prod","Description":"x","Meta":{"k":"v"}}`...))
	f.Add(append([]byte{5}, `{"Name":"readers","Policies":[{"Name":"readonly"},null]}`...))
	f.Add(append([]byte{6}, `{"Type":"client","Roles":[{"Name":"readers"},{"ID":"x"},null],"ExpirationTTL":"1h"}`...))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		kind, body := in[0]%7, in[1:]
		r := httptest.NewRequest("PUT", "/v1/x", bytes.NewReader(body))
		w := httptest.NewRecorder()
		var err error
		switch kind {
		case 0:
			var req api.JobRegisterRequest
			if err = decodeBody(w, r, &req); err == nil && req.Job != nil {
				j := apiconv.JobToStructs(req.Job)
				j.Canonicalize()
				_ = j.Validate()
				_ = apiconv.JobFromStructs(j)
			}
		case 1:
			var req api.NodeUpdateDrainRequest
			err = decodeBody(w, r, &req)
		case 2:
			var req api.NodeUpdateEligibilityRequest
			err = decodeBody(w, r, &req)
		case 3:
			var req api.EvalDeleteRequest
			err = decodeBody(w, r, &req)
		case 4:
			var req api.Namespace
			err = decodeBody(w, r, &req)
		case 5:
			var req api.ACLRole
			if err = decodeBody(w, r, &req); err == nil {
				_ = apiconv.ACLRoleToStructs(&req)
			}
		case 6:
			var req api.ACLToken
			if err = decodeBody(w, r, &req); err == nil {
				_ = apiconv.ACLTokenToStructs(&req)
			}
		}
		if err != nil {
			var tooBig *http.MaxBytesError
			if code := server.ErrorCode(err); code != 400 && !errors.As(err, &tooBig) || err.Error() == "" {
				t.Fatalf("bad body answered %d %q, want a 400 with a message", code, err)
			}
		}
	})
}
