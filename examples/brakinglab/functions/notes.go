package functions

import (
	"context"
	"fmt"
	"time"

	"github.com/brakinglab/codemode-go/catalog"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
	"github.com/brakinglab/codemode-go/examples/brakinglab/tracks"
)

// NotepadsArgs filter getNotepads.
type NotepadsArgs struct {
	Tag string `json:"tag,omitempty" jsonschema:"Only notepads with this tag (case-insensitive)"`
}

// NotepadArgs name one notepad.
type NotepadArgs struct {
	NotepadID string `json:"notepadId" validate:"required"`
}

// Notepad is a free-form note.
type Notepad struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	Body      string    `json:"body"`
	Tags      []string  `json:"tags"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// CreateNotepadArgs describe a new notepad.
type CreateNotepadArgs struct {
	Title string   `json:"title" validate:"required,max=200"`
	Body  string   `json:"body" validate:"max=20000"`
	Tags  []string `json:"tags,omitempty" validate:"max=20,dive,min=1,max=40"`
}

// UpdateNotepadArgs change a notepad; absent fields are kept.
type UpdateNotepadArgs struct {
	NotepadID string    `json:"notepadId" validate:"required"`
	Title     *string   `json:"title,omitempty" validate:"omitempty,min=1,max=200"`
	Body      *string   `json:"body,omitempty" validate:"omitempty,max=20000"`
	Tags      *[]string `json:"tags,omitempty" validate:"omitempty,max=20,dive,min=1,max=40"`
}

// TrackNotesArgs select track notes.
type TrackNotesArgs struct {
	TrackName   string `json:"trackName" validate:"required"`
	CornerIndex *int   `json:"cornerIndex,omitempty" validate:"omitempty,min=0" jsonschema:"Only notes about this corner"`
}

// TrackNote is a note about a track or one of its corners.
type TrackNote struct {
	ID          string    `json:"id"`
	TrackName   string    `json:"trackName"`
	CornerIndex *int      `json:"cornerIndex,omitempty" jsonschema:"Absent for a note about the whole track"`
	CornerName  string    `json:"cornerName,omitempty"`
	Note        string    `json:"note"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// AddTrackNoteArgs describe a new track note.
type AddTrackNoteArgs struct {
	TrackName   string `json:"trackName" validate:"required"`
	CornerIndex *int   `json:"cornerIndex,omitempty" validate:"omitempty,min=0" jsonschema:"Omit for a note about the whole track"`
	Note        string `json:"note" validate:"required,max=2000"`
}

// UpdateTrackNoteArgs change a track note's text.
type UpdateTrackNoteArgs struct {
	TrackNoteID string `json:"trackNoteId" validate:"required"`
	Note        string `json:"note" validate:"required,max=2000"`
}

// TrackNoteArgs name one track note.
type TrackNoteArgs struct {
	TrackNoteID string `json:"trackNoteId" validate:"required"`
}

func registerNotes(c *catalog.Catalog, a *api) error {
	return firstErr(
		add(c, catalog.Func[NotepadsArgs, []Notepad]{
			Name: "getNotepads", Tier: catalog.ReadOnly,
			Description: "Lists your notepads, most recently updated first, optionally with one tag.",
			Handler: func(ctx context.Context, in NotepadsArgs) ([]Notepad, error) {
				uid, err := a.userID(ctx)
				if err != nil {
					return nil, err
				}
				ns, err := a.st.Notepads(ctx, uid, in.Tag)
				out := make([]Notepad, len(ns))
				for i, n := range ns {
					out[i] = notepad(n)
				}
				return out, err
			},
		}),
		add(c, catalog.Func[NotepadArgs, Notepad]{
			Name: "getNotepad", Tier: catalog.ReadOnly,
			Description: "Returns one of your notepads.",
			Handler: func(ctx context.Context, in NotepadArgs) (Notepad, error) {
				uid, err := a.userID(ctx)
				if err != nil {
					return Notepad{}, err
				}
				n, err := a.st.Notepad(ctx, uid, in.NotepadID)
				return notepad(n), notFound(err, "notepad", in.NotepadID)
			},
		}),
		add(c, catalog.Func[CreateNotepadArgs, Notepad]{
			Name: "createNotepad", Tier: catalog.Mutating,
			Description: "Creates a notepad with a title, body and optional tags.",
			Handler: func(ctx context.Context, in CreateNotepadArgs) (Notepad, error) {
				uid, err := a.userID(ctx)
				if err != nil {
					return Notepad{}, err
				}
				n, err := a.st.CreateNotepad(ctx, uid, store.Notepad{Title: in.Title, Body: in.Body, Tags: in.Tags})
				return notepad(n), err
			},
		}),
		add(c, catalog.Func[UpdateNotepadArgs, Notepad]{
			Name: "updateNotepad", Tier: catalog.Mutating,
			Description: "Changes the title, body or tags of one of your notepads; absent fields are kept, tags are replaced as a whole.",
			Validate: func(ctx context.Context, in UpdateNotepadArgs) error {
				uid, err := a.userID(ctx)
				if err != nil {
					return err
				}
				_, err = a.st.Notepad(ctx, uid, in.NotepadID)
				return notFound(err, "notepad", in.NotepadID)
			},
			Handler: func(ctx context.Context, in UpdateNotepadArgs) (Notepad, error) {
				uid, err := a.userID(ctx)
				if err != nil {
					return Notepad{}, err
				}
				n, err := a.st.UpdateNotepad(ctx, uid, in.NotepadID, func(n *store.Notepad) error {
					if in.Title != nil {
						n.Title = *in.Title
					}
					if in.Body != nil {
						n.Body = *in.Body
					}
					if in.Tags != nil {
						n.Tags = *in.Tags
					}
					return nil
				})
				return notepad(n), notFound(err, "notepad", in.NotepadID)
			},
		}),
		add(c, catalog.Func[NotepadArgs, Deleted]{
			Name: "deleteNotepad", Tier: catalog.Mutating,
			Approval:    a.approval,
			Description: "Deletes one of your notepads (restoreNotepad undoes it).",
			Validate: func(ctx context.Context, in NotepadArgs) error {
				uid, err := a.userID(ctx)
				if err != nil {
					return err
				}
				_, err = a.st.Notepad(ctx, uid, in.NotepadID)
				return notFound(err, "notepad", in.NotepadID)
			},
			Handler: func(ctx context.Context, in NotepadArgs) (Deleted, error) {
				uid, err := a.userID(ctx)
				if err != nil {
					return Deleted{}, err
				}
				if err := a.st.DeleteNotepad(ctx, uid, in.NotepadID); err != nil {
					return Deleted{}, notFound(err, "notepad", in.NotepadID)
				}
				return Deleted{ID: in.NotepadID, Deleted: true}, nil
			},
		}),
		add(c, catalog.Func[NotepadArgs, Notepad]{
			Name: "restoreNotepad", Tier: catalog.Mutating,
			Description: "Restores a notepad you deleted.",
			Validate: func(ctx context.Context, in NotepadArgs) error {
				return a.owns(ctx, store.KindNotepad, "notepad", in.NotepadID)
			},
			Handler: func(ctx context.Context, in NotepadArgs) (Notepad, error) {
				uid, err := a.userID(ctx)
				if err != nil {
					return Notepad{}, err
				}
				n, err := a.st.RestoreNotepad(ctx, uid, in.NotepadID)
				return notepad(n), notFound(err, "notepad", in.NotepadID)
			},
		}),
		add(c, catalog.Func[TrackNotesArgs, []TrackNote]{
			Name: "getTrackNotes", Tier: catalog.ReadOnly,
			Description: "Lists your notes about a track: whole-track notes first, then by corner.",
			Handler: func(ctx context.Context, in TrackNotesArgs) ([]TrackNote, error) {
				uid, err := a.userID(ctx)
				if err != nil {
					return nil, err
				}
				t, err := track(in.TrackName, "trackName")
				if err != nil {
					return nil, err
				}
				ns, err := a.st.TrackNotes(ctx, uid, t.ID, in.CornerIndex)
				out := make([]TrackNote, len(ns))
				for i, n := range ns {
					out[i] = trackNote(n)
				}
				return out, err
			},
		}),
		add(c, catalog.Func[AddTrackNoteArgs, TrackNote]{
			Name: "addTrackNote", Tier: catalog.Mutating,
			Description: "Adds a note about a track, or about one corner of it (cornerIndex from getTracks).",
			Validate: func(ctx context.Context, in AddTrackNoteArgs) error {
				_, err := noteTrack(in)
				return err
			},
			Handler: func(ctx context.Context, in AddTrackNoteArgs) (TrackNote, error) {
				uid, err := a.userID(ctx)
				if err != nil {
					return TrackNote{}, err
				}
				t, err := noteTrack(in)
				if err != nil {
					return TrackNote{}, err
				}
				n, err := a.st.AddTrackNote(ctx, uid, store.TrackNote{TrackID: t.ID, CornerIndex: in.CornerIndex, Note: in.Note})
				return trackNote(n), err
			},
		}),
		add(c, catalog.Func[UpdateTrackNoteArgs, TrackNote]{
			Name: "updateTrackNote", Tier: catalog.Mutating,
			Description: "Replaces the text of one of your track notes.",
			Validate: func(ctx context.Context, in UpdateTrackNoteArgs) error {
				return a.liveTrackNote(ctx, in.TrackNoteID)
			},
			Handler: func(ctx context.Context, in UpdateTrackNoteArgs) (TrackNote, error) {
				uid, err := a.userID(ctx)
				if err != nil {
					return TrackNote{}, err
				}
				n, err := a.st.UpdateTrackNote(ctx, uid, in.TrackNoteID, func(n *store.TrackNote) error {
					n.Note = in.Note
					return nil
				})
				return trackNote(n), notFound(err, "track note", in.TrackNoteID)
			},
		}),
		add(c, catalog.Func[TrackNoteArgs, Deleted]{
			Name: "deleteTrackNote", Tier: catalog.Mutating,
			Approval:    a.approval,
			Description: "Deletes one of your track notes (restoreTrackNote undoes it).",
			Validate: func(ctx context.Context, in TrackNoteArgs) error {
				return a.liveTrackNote(ctx, in.TrackNoteID)
			},
			Handler: func(ctx context.Context, in TrackNoteArgs) (Deleted, error) {
				uid, err := a.userID(ctx)
				if err != nil {
					return Deleted{}, err
				}
				if err := a.st.DeleteTrackNote(ctx, uid, in.TrackNoteID); err != nil {
					return Deleted{}, notFound(err, "track note", in.TrackNoteID)
				}
				return Deleted{ID: in.TrackNoteID, Deleted: true}, nil
			},
		}),
		add(c, catalog.Func[TrackNoteArgs, TrackNote]{
			Name: "restoreTrackNote", Tier: catalog.Mutating,
			Description: "Restores a track note you deleted.",
			Validate: func(ctx context.Context, in TrackNoteArgs) error {
				return a.owns(ctx, store.KindTrackNote, "track note", in.TrackNoteID)
			},
			Handler: func(ctx context.Context, in TrackNoteArgs) (TrackNote, error) {
				uid, err := a.userID(ctx)
				if err != nil {
					return TrackNote{}, err
				}
				n, err := a.st.RestoreTrackNote(ctx, uid, in.TrackNoteID)
				return trackNote(n), notFound(err, "track note", in.TrackNoteID)
			},
		}),
	)
}

func (a *api) liveTrackNote(ctx context.Context, id string) error {
	uid, err := a.userID(ctx)
	if err != nil {
		return err
	}
	_, err = a.st.TrackNote(ctx, uid, id)
	return notFound(err, "track note", id)
}

// noteTrack resolves the track and checks the corner index.
func noteTrack(in AddTrackNoteArgs) (tracks.Track, error) {
	t, err := track(in.TrackName, "trackName")
	if err != nil {
		return t, err
	}
	if in.CornerIndex != nil && *in.CornerIndex >= len(t.Corners) {
		return t, issue(fmt.Sprintf("%s has corners 0 to %d", t.Name, len(t.Corners)-1), "cornerIndex")
	}
	return t, nil
}

func notepad(n store.Notepad) Notepad {
	return Notepad{ID: n.ID, Title: n.Title, Body: n.Body, Tags: n.Tags, CreatedAt: n.CreatedAt, UpdatedAt: n.UpdatedAt}
}

func trackNote(n store.TrackNote) TrackNote {
	out := TrackNote{ID: n.ID, TrackName: trackName(n.TrackID), CornerIndex: n.CornerIndex, Note: n.Note, CreatedAt: n.CreatedAt, UpdatedAt: n.UpdatedAt}
	if t, ok := tracks.ByID(n.TrackID); ok && n.CornerIndex != nil && *n.CornerIndex < len(t.Corners) {
		out.CornerName = t.Corners[*n.CornerIndex].Name
	}
	return out
}
