// class 7: JSON.parse of a value that is already parsed.
// reply: JSON.parse takes a JSON string, but this value is already an array
// reply: host functions return parsed values
const raw = await brakinglab.getTracks({});
const tracks = JSON.parse(raw);
return tracks.map((t: any) => t.name);
