const sessions = await brakinglab.getSessions({});
return sessions.length;
