// class 6: an async IIFE that is never awaited.
// reply: line 8, column 1
// reply: the async function called here was not awaited
// reply: await (async () => { … })()
(async () => {
  const notes = await brakinglab.getTrackNotes({ trackName: "Spa" });
  console.log(notes.length, "notes");
})();
return "started";
