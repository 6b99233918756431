/**
 * One face whose hair is restyled: the shared hair rules, checked before charging (`check`
 * on the local engine, `safety` on any engine: ADR 008).
 */
export { check, safety } from "../../shared/hair/rules";
