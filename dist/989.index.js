export const id = 989;
export const ids = [989];
export const modules = {

/***/ 79989:
/***/ ((module) => {

module.exports = eval("require")("canvas");


/***/ })

};

//# sourceMappingURL=989.index.js.map