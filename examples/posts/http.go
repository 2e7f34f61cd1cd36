package posts

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql/denorm"
)

// Handler serves the store over HTTP:
//
//	POST   /posts                      {"user_id": uuid, "content": text, "hashtags": [text]} -> 201 post
//	GET    /posts/{id}                 -> post
//	DELETE /posts/{id}                 -> 204
//	GET    /users/{id}/posts?limit=20&page=TOKEN     -> {"posts": [...], "next": TOKEN}
//	GET    /hashtags/{tag}/posts?limit=20&page=TOKEN -> {"posts": [...], "next": TOKEN}
//
// A timeline page without "next" is the end: there are no more posts. A short page with
// "stopped_early": true read its share of months first; "next" goes on from there.
//
// Bad input is a 400 with {"error": "..."} saying what to change, a missing post a 404,
// a cluster that cannot answer a 503, and so does a timeline not served yet (ErrNotServed).
func Handler(st *Store, log *slog.Logger) http.Handler {
	h := &handler{st: st, log: log}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /posts", h.create)
	mux.HandleFunc("GET /posts/{id}", h.get)
	mux.HandleFunc("DELETE /posts/{id}", h.delete)
	mux.HandleFunc("GET /users/{id}/posts", h.userTimeline)
	mux.HandleFunc("GET /hashtags/{tag}/posts", h.hashtagTimeline)
	return mux
}

type handler struct {
	st  *Store
	log *slog.Logger
}

type createRequest struct {
	UserID   string   `json:"user_id"`
	Content  string   `json:"content"`
	Hashtags []string `json:"hashtags"`
}

func (h *handler) create(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		h.fail(w, &InputError{Msg: "request body: " + err.Error()})
		return
	}
	user, err := parseUUID("user_id", req.UserID)
	if err != nil {
		h.fail(w, err)
		return
	}
	p, err := NewPost(user, req.Content, req.Hashtags)
	if err != nil {
		h.fail(w, err)
		return
	}
	if err := h.st.Create(r.Context(), p); err != nil {
		h.fail(w, err)
		return
	}
	w.Header().Set("Location", "/posts/"+p.ID.String())
	h.reply(w, http.StatusCreated, p)
}

func (h *handler) get(w http.ResponseWriter, r *http.Request) {
	id, err := parseUUID("post id", r.PathValue("id"))
	if err != nil {
		h.fail(w, err)
		return
	}
	p, err := h.st.Get(r.Context(), id)
	if err != nil {
		h.fail(w, err)
		return
	}
	h.reply(w, http.StatusOK, p)
}

func (h *handler) delete(w http.ResponseWriter, r *http.Request) {
	id, err := parseUUID("post id", r.PathValue("id"))
	if err != nil {
		h.fail(w, err)
		return
	}
	if err := h.st.Delete(r.Context(), id); err != nil {
		h.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *handler) userTimeline(w http.ResponseWriter, r *http.Request) {
	user, err := parseUUID("user id", r.PathValue("id"))
	if err != nil {
		h.fail(w, err)
		return
	}
	limit, err := parseLimit(r)
	if err != nil {
		h.fail(w, err)
		return
	}
	page, err := h.st.UserTimeline(r.Context(), user, limit, r.URL.Query().Get("page"))
	if err != nil {
		h.fail(w, err)
		return
	}
	h.reply(w, http.StatusOK, page)
}

func (h *handler) hashtagTimeline(w http.ResponseWriter, r *http.Request) {
	limit, err := parseLimit(r)
	if err != nil {
		h.fail(w, err)
		return
	}
	page, err := h.st.HashtagTimeline(r.Context(), r.PathValue("tag"), limit, r.URL.Query().Get("page"))
	if err != nil {
		h.fail(w, err)
		return
	}
	h.reply(w, http.StatusOK, page)
}

func parseUUID(what, s string) (gocql.UUID, error) {
	u, err := gocql.ParseUUID(s)
	if err != nil {
		return u, &InputError{Msg: fmt.Sprintf("%s %q is not a UUID", what, s)}
	}
	return u, nil
}

func parseLimit(r *http.Request) (int, error) {
	s := r.URL.Query().Get("limit")
	if s == "" {
		return 20, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 100 {
		return 0, &InputError{Msg: fmt.Sprintf("limit %q: want a number from 1 to 100", s)}
	}
	return n, nil
}

func (h *handler) reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil && h.log != nil {
		h.log.Warn("write response", "err", err)
	}
}

// fail maps an error to a status: input errors and entities that would not marshal are
// the client's (400), a missing post 404, anything else the cluster's (503).
func (h *handler) fail(w http.ResponseWriter, err error) {
	var in *InputError
	var missing *denorm.MissingKeyError
	var value *denorm.ValueError
	var tooLarge *denorm.BatchTooLargeError
	status := http.StatusServiceUnavailable
	switch {
	case errors.As(err, &in), errors.As(err, &missing), errors.As(err, &value), errors.As(err, &tooLarge):
		status = http.StatusBadRequest
	case errors.Is(err, ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, ErrNotServed):
		h.reply(w, http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
		return
	}
	if status == http.StatusServiceUnavailable && h.log != nil {
		h.log.Error("request failed", "err", err)
	}
	h.reply(w, status, map[string]string{"error": err.Error()})
}
