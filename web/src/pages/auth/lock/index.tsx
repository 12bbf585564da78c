import { LockOutlined } from '@ant-design/icons'
import { App, Avatar, Button, Card, Flex, Form, Input, Typography } from 'antd'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router-dom'
import logo from '../../../assets/logo.svg'
import { signOut } from '../../../services/session'
import { useSessionStore } from '../../../stores/session'

/** /lock: unlocks with the lock password set before locking; a wrong one shows an error. */
export default function Lock() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const navigate = useNavigate()
  const userInfo = useSessionStore((s) => s.userInfo)
  const [form] = Form.useForm<{ password: string }>()

  const unlock = ({ password }: { password: string }) => {
    if (useSessionStore.getState().unlock(password)) {
      void navigate('/', { replace: true })
    } else {
      form.setFields([{ name: 'password', errors: [t('lock.wrong')] }])
      void message.error(t('lock.wrong'))
    }
  }

  return (
    <Flex
      align="center"
      justify="center"
      style={{
        minHeight: '100vh',
        background: 'linear-gradient(135deg, #0b3d91 0%, #1f6fd1 55%, #f5b301 140%)',
      }}
      data-testid="lock-page"
    >
      <Card style={{ width: 360, textAlign: 'center' }}>
        <Avatar size={72} src={userInfo?.avatar || logo} />
        <Typography.Title level={4}>{userInfo?.nick_name || userInfo?.account}</Typography.Title>
        <Typography.Paragraph type="secondary">{t('lock.note')}</Typography.Paragraph>
        <Form form={form} onFinish={unlock}>
          <Form.Item name="password" rules={[{ required: true, message: t('lock.required') }]}>
            <Input.Password
              prefix={<LockOutlined />}
              placeholder={t('lock.password')}
              data-testid="unlock-password"
              autoFocus
            />
          </Form.Item>
          <Button type="primary" htmlType="submit" block data-testid="unlock-submit">
            {t('lock.unlock')}
          </Button>
        </Form>
        <Button
          type="link"
          style={{ marginTop: 8 }}
          onClick={() => void signOut().then(() => navigate('/login', { replace: true }))}
        >
          {t('lock.logout')}
        </Button>
      </Card>
    </Flex>
  )
}
