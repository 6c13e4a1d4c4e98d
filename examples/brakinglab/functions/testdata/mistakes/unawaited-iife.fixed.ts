await (async () => {
  const notes = await brakinglab.getTrackNotes({ trackName: "Spa" });
  console.log(notes.length, "notes");
})();
return "started";
