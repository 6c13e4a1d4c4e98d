const notes = await brakinglab.getTrackNotes({ trackName: "Spa" });
return notes;
