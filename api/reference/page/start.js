// Renders the API's own OpenAPI document. The validator badge is off: it
// would send the document's address to validator.swagger.io.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#reference",
  validatorUrl: null,
  deepLinking: true,
  docExpansion: "list",
  defaultModelsExpandDepth: -1,
  filter: true,
});
