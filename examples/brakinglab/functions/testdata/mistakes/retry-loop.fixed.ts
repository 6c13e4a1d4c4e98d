const sessions = await brakinglab.getSessions({ trackName: "Spa", limit: 100 });
return sessions.length;
