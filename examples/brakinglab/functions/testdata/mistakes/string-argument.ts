// class 2: one positional argument instead of an object.
// reply: brakinglab.getTrackNotes takes one argument, an object with named members; got a string.
// reply: Call it as brakinglab.getTrackNotes({ trackName: string; cornerIndex?: number })
const notes = await brakinglab.getTrackNotes("Spa");
return notes;
