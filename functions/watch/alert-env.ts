/** The environment variables of the quiet-profile watch (the stack sets them; pure data). */
export const ALERT_TOPIC_ENV = 'ALERT_TOPIC_ARN';
export const CONSOLE_URL_ENV = 'LEADS_CONSOLE_URL';
