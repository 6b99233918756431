/** One face whose hair is restyled: the shared hair rule, checked before charging. */
export { check } from "../../shared/hair/rules";
