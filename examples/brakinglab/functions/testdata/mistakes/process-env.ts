// class 9: a Node global.
// reply: process is not defined
// reply: Data comes from the host's functions, on brakinglab
const user = process.env.USER ?? "me";
return user;
