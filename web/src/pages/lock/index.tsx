import { Result } from 'antd'
import { useTranslation } from 'react-i18next'

/** /lock: the lock screen. How it unlocks arrives with the lock feature. */
export default function Lock() {
  const { t } = useTranslation()
  return <Result status="warning" title={t('lock.title')} subTitle={t('lock.note')} />
}
