// class 9: a Node module.
// reply: require is not defined
// reply: data comes from the host's functions, on brakinglab
const fs = require("fs");
const sessions = JSON.parse(fs.readFileSync("sessions.json", "utf8"));
return sessions.length;
