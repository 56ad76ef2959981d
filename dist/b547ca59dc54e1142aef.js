module.exports = eval("require")("../data/");
