const tracks = await brakinglab.getTracks({});
return tracks.map((t: any) => t.name);
